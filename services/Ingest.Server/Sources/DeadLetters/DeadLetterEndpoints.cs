using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Http;
using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Sources.DeadLetters;

/// <summary><c>/dead-letters</c>: inspect, replay (optionally with a fixed body) and delete messages that could not become documents.</summary>
public static class DeadLetterEndpoints
{
    public static IEndpointRouteBuilder MapDeadLetterEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/dead-letters", GetPage).RequireScope(ApiScopes.Read);
        endpoints.MapGet("/dead-letters/{id}", GetOne).RequireScope(ApiScopes.Read);
        endpoints.MapPost("/dead-letters/{id}/replay", ReplayAsync).RequireScope(ApiScopes.Write);
        endpoints.MapDelete("/dead-letters/{id}", DeleteAsync).RequireScope(ApiScopes.Write);
        return endpoints;
    }

    private static IResult GetPage(HttpRequest request, DocumentStore store)
    {
        if (!QueryParameters.TryGetStart(request, out var start, out var problem)
            || !QueryParameters.TryGetPageSize(request, out var pageSize, out problem))
        {
            return problem!;
        }

        var deadLetters = store.GetDeadLetters(start, pageSize + 1);
        var count = Math.Min(deadLetters.Count, pageSize);
        var items = new DeadLetterEntry[count];
        for (var i = 0; i < count; i++)
        {
            items[i] = DeadLetterView.From(deadLetters[i]);
        }

        long? next = deadLetters.Count > pageSize ? items[^1].Id : null;
        return TypedResults.Json(new DeadLetterPage(items, next), IngestHttpJsonContext.Default.DeadLetterPage);
    }

    private static IResult GetOne(string id, DocumentStore store)
    {
        if (!TryParseId(id, out var deadLetterId, out var problem))
        {
            return problem;
        }

        var deadLetter = store.GetDeadLetter(deadLetterId);
        return deadLetter is null
            ? DeadLetterNotFound(deadLetterId)
            : TypedResults.Json(DeadLetterView.From(deadLetter), IngestHttpJsonContext.Default.DeadLetterEntry);
    }

    private static async Task<IResult> DeleteAsync(string id, DocumentStore store)
    {
        if (!TryParseId(id, out var deadLetterId, out var problem))
        {
            return problem;
        }

        return await store.DeleteDeadLetterAsync(deadLetterId).ConfigureAwait(false)
            ? TypedResults.NoContent()
            : DeadLetterNotFound(deadLetterId);
    }

    /// <summary>
    /// Maps the stored message again with its source's rules (the request body, when given,
    /// replaces the message body) and, if it now maps, writes the document and deletes the dead
    /// letter in one batch.
    /// </summary>
    private static async Task<IResult> ReplayAsync(string id, HttpContext context, DocumentStore store, IngestionService ingestion)
    {
        if (!TryParseId(id, out var deadLetterId, out var problem))
        {
            return problem;
        }

        var deadLetter = store.GetDeadLetter(deadLetterId);
        if (deadLetter is null)
        {
            return DeadLetterNotFound(deadLetterId);
        }

        if (!DeadLetterEnvelope.TryDecode(deadLetter.Raw.Span, out var envelope, out var error))
        {
            return ApiProblems.Unprocessable(
                "Dead letter cannot be replayed", $"Dead letter {deadLetterId} does not hold a whole message ({error}); it can only be inspected or deleted.");
        }

        var read = await RequestBody.ReadAsync(context, store.Options.MaxBodyBytes).ConfigureAwait(false);
        using var fix = read.Body;
        if (fix is null)
        {
            return read.Problem!;
        }

        var source = ingestion.Find(SourceOrigin.SourceName(deadLetter.Position.Source));
        var batch = new WriteBatch();
        if (!TryMap(envelope, fix, source, deadLetter.Position, batch, out var mapped, out var reason))
        {
            return ApiProblems.Unprocessable(
                "Message still does not map to a document",
                $"Dead letter {deadLetterId} was not replayed and is kept: {reason}");
        }

        batch.DeleteDeadLetter(deadLetterId);
        WriteResult result;
        try
        {
            result = await store.WriteAsync(batch).ConfigureAwait(false);
        }
        catch (InvalidDocumentException ex)
        {
            return ApiProblems.Unprocessable("Store rejected the replayed message", $"Dead letter {deadLetterId} was not replayed and is kept: {ex.Message}");
        }

        long? etag = result.LastEtag == 0 ? null : result.LastEtag;
        return TypedResults.Json(
            new ReplayResponse(mapped.Id, mapped.Collection, etag, mapped.Operation),
            IngestHttpJsonContext.Default.ReplayResponse);
    }

    /// <summary>
    /// Maps the message as its source would: through the source's transform if it has one (all its
    /// operations go into the batch; the answer names the first, or "skip" when there are none),
    /// else through its rules.
    /// </summary>
    private static bool TryMap(
        DeadLetterEnvelope envelope, RequestBody fix, IngestSource? source, SourcePosition position, WriteBatch batch,
        out (string Id, string Collection, string Operation) mapped, out string? reason)
    {
        // An empty request body means "replay as stored".
        var replaceBody = fix.Length > 0;
        var message = envelope.ToIncomingMessage(fix.Span, replaceBody);
        var headers = new EnvelopeHeaderList(envelope.Headers);
        var itemPosition = new ItemPosition(position.Source, position.Partition, position.NextOffset, Epoch: 0);
        var rules = source?.Rules ?? new MappingRules();
        var item = source?.Script is { } script
            ? IngestItemMapper.Transform(message, script, source.Name, source.Kind == "kafka", rules, headers, default, itemPosition)
            : IngestItemMapper.Map(message, rules, headers, replaceBody ? default : envelope.Body, itemPosition);
        try
        {
            switch (item.Kind)
            {
                case IngestItemKind.Put:
                    batch.Put(item.Id!, item.Collection!, item.Payload.Span);
                    mapped = (item.Id!, item.Collection!, IngestOperations.PutName);
                    break;
                case IngestItemKind.Delete:
                    batch.Delete(item.Id!);
                    mapped = (item.Id!, item.Collection!, IngestOperations.DeleteName);
                    break;
                case IngestItemKind.Transformed:
                    var operations = item.Operations!;
                    foreach (var operation in operations)
                    {
                        _ = operation.Kind == IngestItemKind.Delete ? batch.Delete(operation.Id) : batch.Put(operation.Id, operation.Collection!, operation.Body);
                    }

                    mapped = operations.Count == 0 ? (string.Empty, string.Empty, "skip")
                        : operations[0].Kind == IngestItemKind.Delete ? (operations[0].Id, string.Empty, IngestOperations.DeleteName)
                        : (operations[0].Id, operations[0].Collection!, IngestOperations.PutName);
                    break;
                default:
                    mapped = default;
                    reason = item.DeadLetterReason;
                    return false;
            }
        }
        finally
        {
            // The batch copied the body.
            item.ReturnRented();
        }

        reason = null;
        return true;
    }

    private static bool TryParseId(string text, out long id, out IResult problem)
    {
        if (long.TryParse(text, System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out id) && id > 0)
        {
            problem = null!;
            return true;
        }

        problem = ApiProblems.BadParameter("id", text, "expected a dead letter id, a positive integer");
        return false;
    }

    private static IResult DeadLetterNotFound(long id) =>
        ApiProblems.NotFound("Dead letter not found", $"There is no dead letter with id {id}.");
}
