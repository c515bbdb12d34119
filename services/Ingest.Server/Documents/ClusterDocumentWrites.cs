using System.Globalization;
using System.Text;
using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting.Http;
using Microsoft.Net.Http.Headers;

namespace Ingest.Server.Documents;

/// <summary>
/// <c>PUT</c> and <c>DELETE /docs/{id}</c> in cluster mode: checked here as the store would check them (400 as in
/// single mode), produced to the cluster topic as a <c>doc</c> record, and answered once this node has applied it, with
/// this node's etag and <c>X-Ingest-Position</c>. <c>If-Match</c> names a local etag; it is turned into the version's
/// node-independent identity (<see cref="DocumentVersionIdentity"/>) that every node checks when it applies the write,
/// so a write whose version changed meanwhile is skipped everywhere and answered 412 here.
/// </summary>
internal static class ClusterDocumentWrites
{
    public static async Task<IResult> PutAsync(HttpContext context, DocumentStore store, string id, string collection, RequestBody body, Document? existing)
    {
        if (!TryExpectedVersion(context, id, existing, out var expected, out var precondition))
        {
            return precondition;
        }

        try
        {
            store.Validate(new WriteBatch().Put(id, collection, body.Span));
        }
        catch (InvalidDocumentException ex)
        {
            return ApiProblems.BadRequest("Invalid document", ex.Message);
        }

        var headers = new List<KeyValuePair<string, byte[]>> { new(ClusterHeaders.Collection, Encoding.UTF8.GetBytes(collection)) };
        AddExpected(headers, expected);
        var result = await ClusterWrites.AppendAndApplyAsync(context, new ClusterRecord("doc", id, body.Span.ToArray(), headers)).ConfigureAwait(false);
        if (result.Failure is { } failure)
        {
            return PreconditionFailed(id, failure);
        }

        // This node's version now; a later write of the same id applied meanwhile would show here instead.
        var etag = store.Get(id) is { IsDeleted: false } applied ? applied.Etag : 0;
        context.Response.Headers.ETag = new EntityTagHeaderValue($"\"{etag}\"").ToString();
        if (existing is null)
        {
            context.Response.Headers.Location = "/docs/" + Uri.EscapeDataString(id).Replace("%2F", "/", StringComparison.Ordinal);
        }

        return TypedResults.Json(
            new DocumentWriteResponse(id, collection, etag),
            IngestHttpJsonContext.Default.DocumentWriteResponse,
            statusCode: existing is null ? StatusCodes.Status201Created : StatusCodes.Status200OK);
    }

    public static async Task<IResult> DeleteAsync(HttpContext context, DocumentStore store, string id)
    {
        try
        {
            store.Validate(new WriteBatch().Delete(id));
        }
        catch (InvalidDocumentException ex)
        {
            return ApiProblems.BadRequest("Invalid document id", ex.Message);
        }

        // Produced even when this node has no such document: it may trail the log, and a put another node took
        // must not outlive a delete that was answered. The answer is 404 when this node had none before.
        var existing = store.Get(id);
        var existed = existing is { IsDeleted: false };
        if (!TryExpectedVersion(context, id, existing, out var expected, out var precondition))
        {
            return precondition;
        }

        var headers = new List<KeyValuePair<string, byte[]>>();
        AddExpected(headers, expected);
        var result = await ClusterWrites.AppendAndApplyAsync(context, new ClusterRecord("doc", id, ReadOnlyMemory<byte>.Empty, headers)).ConfigureAwait(false);
        if (result.Failure is { } failure)
        {
            return PreconditionFailed(id, failure);
        }

        return existed
            ? TypedResults.NoContent()
            : ApiProblems.NotFound("Document not found", $"There was no document with id '{ApiProblems.Shorten(id)}' on this node; the delete went through the log all the same.");
    }

    // The identity of the version If-Match names (null without If-Match); false with a 412 when it is not the current one here.
    // Single-node writes check If-Match with it too (DocumentEndpoints), and ignore the identity.
    internal static bool TryExpectedVersion(HttpContext context, string id, Document? existing, out string? expected, out IResult problem)
    {
        expected = null;
        problem = null!;
        var ifMatch = context.Request.Headers.IfMatch;
        if (ifMatch.Count == 0)
        {
            return true;
        }

        var live = existing is { IsDeleted: false } ? existing : null;
        var value = ifMatch.ToString().Trim();
        if (value == "*")
        {
            expected = DocumentVersionIdentity.AnyLive;
            if (live is null)
            {
                problem = PreconditionFailed(id, $"the document '{ApiProblems.Shorten(id)}' does not exist, and If-Match: * asks for one");
                return false;
            }

            return true;
        }

        if (!EntityTagHeaderValue.TryParseList([value], out var tags) || tags.Count == 0)
        {
            problem = ApiProblems.BadRequest("Invalid header 'If-Match'", $"The If-Match header '{ApiProblems.Shorten(value)}' is not a list of quoted etags, e.g. If-Match: \"42\".");
            return false;
        }

        if (live is not null)
        {
            var current = live.Etag.ToString(CultureInfo.InvariantCulture);
            foreach (var tag in tags)
            {
                if (!tag.IsWeak && tag.Tag.AsSpan().Trim('"').SequenceEqual(current))
                {
                    expected = DocumentVersionIdentity.Of(live);
                    return true;
                }
            }
        }

        problem = PreconditionFailed(
            id, live is null ? $"the document '{ApiProblems.Shorten(id)}' does not exist" : $"the document '{ApiProblems.Shorten(id)}' is at etag \"{live.Etag}\", not {value}");
        return false;
    }

    private static void AddExpected(List<KeyValuePair<string, byte[]>> headers, string? expected)
    {
        if (expected is not null)
        {
            headers.Add(new(ClusterHeaders.IfMatch, Encoding.UTF8.GetBytes(expected)));
        }
    }

    private static IResult PreconditionFailed(string id, string reason) =>
        TypedResults.Problem(
            title: "Precondition failed",
            detail: $"If-Match does not hold: {reason}. Nothing was changed; read the document again (GET /docs/{ApiProblems.Shorten(id)}) and retry with its etag.",
            statusCode: StatusCodes.Status412PreconditionFailed);
}
