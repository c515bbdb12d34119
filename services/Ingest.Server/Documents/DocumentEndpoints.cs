using Ingest.Contracts.Http;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Microsoft.Net.Http.Headers;

namespace Ingest.Server.Documents;

/// <summary>
/// <c>/docs</c>: read, page, put and delete documents. Ids may contain '/', so the id is the rest
/// of the path (<c>/docs/orders/1</c>); an encoded slash (<c>%2F</c>) means the same. The path is
/// percent-decoded exactly once (<see cref="DocumentIdPath"/>).
/// </summary>
public static class DocumentEndpoints
{
    public const string CollectionHeader = "X-Ingest-Collection";

    public static IEndpointRouteBuilder MapDocumentEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/docs", GetPage).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapGet("/docs/{**id}", GetDocument).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapPut("/docs/{**id}", PutDocumentAsync).RequireScope(ApiScopes.Write);
        endpoints.MapDelete("/docs/{**id}", DeleteDocumentAsync).RequireScope(ApiScopes.Write);
        return endpoints;
    }

    private static IResult GetDocument(HttpContext context, DocumentStore store)
    {
        if (!DocumentIdPath.TryRead(context, out var documentId, out var problem))
        {
            return problem;
        }

        var document = store.Get(documentId);
        if (document is null || document.IsDeleted)
        {
            return DocumentNotFound(documentId);
        }

        // A collection named before names were checked may hold characters a header cannot carry.
        context.Response.Headers[CollectionHeader] = HeaderValueEncoding.Encode(document.Collection);
        return TypedResults.Bytes(
            document.Body,
            "application/json",
            lastModified: new DateTimeOffset(DateTime.SpecifyKind(document.LastModified, DateTimeKind.Utc)),
            entityTag: EtagHeader(document.Etag));
    }

    private static IResult GetPage(HttpRequest request, DocumentStore store)
    {
        if (!QueryParameters.TryGetCollection(request, out var collection, out var problem)
            || !QueryParameters.TryGetStart(request, out var start, out problem)
            || !QueryParameters.TryGetPageSize(request, out var pageSize, out problem))
        {
            return problem!;
        }

        if (collection is null)
        {
            return ApiProblems.BadParameter("collection", null, "name the collection to list, e.g. ?collection=Orders");
        }

        // One more than asked tells whether there is a next page, so the last full page says so.
        var documents = store.GetCollectionPage(collection, start, pageSize + 1);
        var count = Math.Min(documents.Count, pageSize);
        var items = new DocumentItem[count];
        for (var i = 0; i < count; i++)
        {
            var document = documents[i];
            items[i] = new DocumentItem(
                document.Id, document.Collection, document.Etag, DateTime.SpecifyKind(document.LastModified, DateTimeKind.Utc), new RawJson(document.Body));
        }

        long? next = documents.Count > pageSize ? items[^1].Etag : null;
        return TypedResults.Json(new CollectionPage(collection, items, next), IngestHttpJsonContext.Default.CollectionPage);
    }

    private static async Task<IResult> PutDocumentAsync(HttpContext context, DocumentStore store)
    {
        if (!DocumentIdPath.TryRead(context, out var documentId, out var problem))
        {
            return problem;
        }

        var request = context.Request;
        if (!JsonContentType.IsJson(request.ContentType))
        {
            return ApiProblems.UnsupportedMediaType(request.ContentType);
        }

        if (!TryGetCollection(request, out var collection, out var collectionProblem))
        {
            return collectionProblem;
        }

        var read = await RequestBody.ReadAsync(context, store.Options.MaxBodyBytes).ConfigureAwait(false);
        using var body = read.Body;
        if (body is null)
        {
            return read.Problem!;
        }

        var existing = store.Get(documentId);
        if (collection is null)
        {
            if (existing is null)
            {
                return ApiProblems.BadParameter(
                    "collection", null, $"the document '{ApiProblems.Shorten(documentId)}' does not exist yet, so pass ?collection=NAME or the {IngestHeaders.Collection} header");
            }

            collection = existing.Collection;
        }

        if (ClusterWrites.LogOf(context) is not null)
        {
            return await ClusterDocumentWrites.PutAsync(context, store, documentId, collection, body, existing).ConfigureAwait(false);
        }

        // If-Match is checked against the version read just above: a write of the same id that lands between the check and
        // this write is not seen (the store has no conditional put), a window of one group commit at most.
        if (!ClusterDocumentWrites.TryExpectedVersion(context, documentId, existing, out _, out var precondition))
        {
            return precondition;
        }

        WriteResult result;
        try
        {
            result = await store.WriteAsync(new WriteBatch().Put(documentId, collection, body.Span)).ConfigureAwait(false);
        }
        catch (InvalidDocumentException ex)
        {
            return ApiProblems.BadRequest("Invalid document", ex.Message);
        }

        context.Response.Headers.ETag = EtagHeader(result.LastEtag).ToString();
        // Whether it is new is judged just before the write; a concurrent writer of the same id can blur 200 and 201.
        if (existing is null)
        {
            context.Response.Headers.Location = DocumentLocation(documentId);
        }

        return TypedResults.Json(
            new DocumentWriteResponse(documentId, collection, result.LastEtag),
            IngestHttpJsonContext.Default.DocumentWriteResponse,
            statusCode: existing is null ? StatusCodes.Status201Created : StatusCodes.Status200OK);
    }

    private static async Task<IResult> DeleteDocumentAsync(HttpContext context, DocumentStore store)
    {
        if (!DocumentIdPath.TryRead(context, out var documentId, out var problem))
        {
            return problem;
        }

        if (ClusterWrites.LogOf(context) is not null)
        {
            return await ClusterDocumentWrites.DeleteAsync(context, store, documentId).ConfigureAwait(false);
        }

        if (context.Request.Headers.IfMatch.Count > 0
            && !ClusterDocumentWrites.TryExpectedVersion(context, documentId, store.Get(documentId), out _, out var precondition))
        {
            return precondition;
        }

        WriteResult result;
        try
        {
            result = await store.WriteAsync(new WriteBatch().Delete(documentId)).ConfigureAwait(false);
        }
        catch (InvalidDocumentException ex)
        {
            return ApiProblems.BadRequest("Invalid document id", ex.Message);
        }

        // A delete of an id that does not exist takes no etag.
        return result.LastEtag == 0 ? DocumentNotFound(documentId) : TypedResults.NoContent();
    }

    /// <summary>
    /// The collection from <c>?collection=</c>, else from the <c>ingest-collection</c> header (plain,
    /// or RFC 8187 <c>UTF-8''...</c> for names that are not ASCII); null when neither is given.
    /// </summary>
    private static bool TryGetCollection(HttpRequest request, out string? collection, out IResult problem)
    {
        problem = null!;
        if (!QueryParameters.TryGetCollection(request, out collection, out var queryProblem))
        {
            problem = queryProblem!;
            return false;
        }

        if (collection is not null)
        {
            return true;
        }

        var header = IngestHeaders.Collection;
        if (!QueryParameters.TryGetSingle(request.Headers[header], header, "header", out var value, out var headerProblem))
        {
            problem = headerProblem!;
            return false;
        }

        if (string.IsNullOrEmpty(value))
        {
            return true;
        }

        if (!HeaderValueEncoding.TryDecode(value, out collection, out var error))
        {
            problem = ApiProblems.BadRequest($"Invalid header '{header}'", $"The {header} header '{ApiProblems.Shorten(value)}' is not a valid RFC 8187 value: {error}.");
            return false;
        }

        if (string.IsNullOrWhiteSpace(collection))
        {
            problem = ApiProblems.BadRequest($"Invalid header '{header}'", $"The {header} header is '{collection}': a collection name needs a visible character.");
            return false;
        }

        return true;
    }

    private static IResult DocumentNotFound(string id) =>
        ApiProblems.NotFound("Document not found", $"There is no document with id '{ApiProblems.Shorten(id)}'.");

    private static EntityTagHeaderValue EtagHeader(long etag) => new($"\"{etag}\"");

    private static string DocumentLocation(string id) => "/docs/" + Uri.EscapeDataString(id).Replace("%2F", "/", StringComparison.Ordinal);
}
