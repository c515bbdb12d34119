using Ingest.Contracts.Http;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Microsoft.Net.Http.Headers;

namespace Ingest.Server.Api;

/// <summary>
/// <c>/docs</c>: read, page, put and delete documents. Ids may contain '/', so the id is the rest
/// of the path (<c>/docs/orders/1</c>); an encoded slash (<c>%2F</c>) means the same.
/// </summary>
public static class DocumentEndpoints
{
    public const string CollectionHeader = "X-Ingest-Collection";

    public static IEndpointRouteBuilder MapDocumentEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/docs", GetPage);
        endpoints.MapGet("/docs/{**id}", GetDocument);
        endpoints.MapPut("/docs/{**id}", PutDocumentAsync);
        endpoints.MapDelete("/docs/{**id}", DeleteDocumentAsync);
        return endpoints;
    }

    private static IResult GetDocument(string? id, HttpContext context, DocumentStore store)
    {
        if (!TryGetId(id, out var documentId, out var problem))
        {
            return problem;
        }

        var document = store.Get(documentId);
        if (document is null || document.IsDeleted)
        {
            return DocumentNotFound(documentId);
        }

        context.Response.Headers[CollectionHeader] = document.Collection;
        return TypedResults.Bytes(
            document.Body,
            "application/json",
            lastModified: new DateTimeOffset(DateTime.SpecifyKind(document.LastModified, DateTimeKind.Utc)),
            entityTag: EtagHeader(document.Etag));
    }

    private static IResult GetPage(HttpRequest request, DocumentStore store)
    {
        var collection = request.Query["collection"].ToString();
        if (collection.Length == 0)
        {
            return ApiProblems.BadParameter("collection", null, "name the collection to list, e.g. ?collection=Orders");
        }

        if (!QueryParameters.TryGetStart(request, out var start, out var problem)
            || !QueryParameters.TryGetPageSize(request, out var pageSize, out problem))
        {
            return problem!;
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

    private static async Task<IResult> PutDocumentAsync(string? id, HttpContext context, DocumentStore store)
    {
        if (!TryGetId(id, out var documentId, out var problem))
        {
            return problem;
        }

        var request = context.Request;
        if (!IsJson(request.ContentType))
        {
            return ApiProblems.UnsupportedMediaType(request.ContentType);
        }

        var limit = store.Options.MaxBodyBytes;
        using var body = await RequestBody.ReadAsync(request, limit, context.RequestAborted).ConfigureAwait(false);
        if (body is null)
        {
            return ApiProblems.TooLarge(request.ContentLength ?? -1, limit);
        }

        var existing = store.Get(documentId);
        var collection = request.Query["collection"].ToString();
        if (collection.Length == 0)
        {
            collection = request.Headers[IngestHeaders.Collection].ToString();
        }

        if (collection.Length == 0)
        {
            if (existing is null)
            {
                return ApiProblems.BadParameter(
                    "collection", null, $"the document '{ApiProblems.Shorten(documentId)}' does not exist yet, so pass ?collection=NAME or the {IngestHeaders.Collection} header");
            }

            collection = existing.Collection;
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

    private static async Task<IResult> DeleteDocumentAsync(string? id, DocumentStore store)
    {
        if (!TryGetId(id, out var documentId, out var problem))
        {
            return problem;
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

    private static bool TryGetId(string? routeValue, out string id, out IResult problem)
    {
        id = routeValue?.Replace("%2F", "/", StringComparison.OrdinalIgnoreCase) ?? string.Empty;
        if (id.Length == 0)
        {
            problem = ApiProblems.BadParameter("id", null, "put the document id in the path, e.g. /docs/orders/1");
            return false;
        }

        problem = null!;
        return true;
    }

    private static IResult DocumentNotFound(string id) =>
        ApiProblems.NotFound("Document not found", $"There is no document with id '{ApiProblems.Shorten(id)}'.");

    private static EntityTagHeaderValue EtagHeader(long etag) => new($"\"{etag}\"");

    private static string DocumentLocation(string id) => "/docs/" + Uri.EscapeDataString(id).Replace("%2F", "/", StringComparison.Ordinal);

    private static bool IsJson(string? contentType)
    {
        // No content type is taken as JSON (the body is validated anyway); a different one is a client mistake.
        if (string.IsNullOrEmpty(contentType))
        {
            return true;
        }

        if (!MediaTypeHeaderValue.TryParse(contentType, out var media))
        {
            return false;
        }

        return media.MediaType.Equals("application/json", StringComparison.OrdinalIgnoreCase)
            || media.Suffix.Equals("json", StringComparison.OrdinalIgnoreCase);
    }
}
