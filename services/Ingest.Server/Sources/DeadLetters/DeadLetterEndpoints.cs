using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Sources;

namespace Ingest.Server.Sources.DeadLetters;

/// <summary><c>/dead-letters</c>: inspect, replay (optionally with a fixed body) and delete messages that could not become documents.</summary>
public static class DeadLetterEndpoints
{
    public static IEndpointRouteBuilder MapDeadLetterEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/dead-letters", GetPage).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
        endpoints.MapGet("/dead-letters/{id}", GetOne).RequireScope(ApiScopes.Read).AddEndpointFilter(AfterPositionFilter.Instance);
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

    private static async Task<IResult> DeleteAsync(string id, HttpContext context, DocumentStore store)
    {
        if (!TryParseId(id, out var deadLetterId, out var problem))
        {
            return problem;
        }

        if (ClusterWrites.LogOf(context) is not null)
        {
            // Ids are local: the record names the dead letter by its origin, so every node deletes its own copy.
            if (store.GetDeadLetter(deadLetterId) is not { } deadLetter)
            {
                return DeadLetterNotFound(deadLetterId);
            }

            var headers = new List<KeyValuePair<string, byte[]>> { new(DeadLetterClusterHandler.Operation, "delete"u8.ToArray()) };
            var identity = DeadLetterIdentity.Of(deadLetter);
            identity.AddTo(headers);
            await ClusterWrites.AppendAndApplyAsync(context, new ClusterRecord(DeadLetterClusterHandler.RecordKind, identity.Key, ReadOnlyMemory<byte>.Empty, headers)).ConfigureAwait(false);
            return TypedResults.NoContent();
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
        if (!DeadLetterReplay.TryMap(envelope, fix.Span, source, deadLetter.Position, batch, out var mapped, out var reason))
        {
            return ApiProblems.Unprocessable(
                "Message still does not map to a document",
                $"Dead letter {deadLetterId} was not replayed and is kept: {reason}");
        }

        if (ClusterWrites.LogOf(context) is not null)
        {
            try
            {
                store.Validate(batch);
            }
            catch (InvalidDocumentException ex)
            {
                return ApiProblems.Unprocessable("Store rejected the replayed message", $"Dead letter {deadLetterId} was not replayed and is kept: {ex.Message}");
            }

            var message = DeadLetterReplay.MessageToReplay(envelope, deadLetter.Raw, fix.Span);
            return await ReplayThroughLogAsync(context, deadLetter, message, new ReplayResponse(mapped.Id, mapped.Collection, null, mapped.Operation)).ConfigureAwait(false);
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
    /// A replay in cluster mode, checked above as in single mode: the record carries the message to replay (the fix in
    /// it) and the dead letter's node-independent identity; every node writes the documents and deletes its copy of the
    /// dead letter (<see cref="DeadLetterClusterHandler"/>), and this node answers once it has, as single mode answers.
    /// </summary>
    private static async Task<IResult> ReplayThroughLogAsync(HttpContext context, DeadLetter deadLetter, byte[] message, ReplayResponse checkedHere)
    {
        var headers = new List<KeyValuePair<string, byte[]>> { new(DeadLetterClusterHandler.Operation, "replay"u8.ToArray()) };
        var identity = DeadLetterIdentity.Of(deadLetter);
        identity.AddTo(headers);
        var written = await ClusterWrites.AppendAndApplyAsync(context, new ClusterRecord(DeadLetterClusterHandler.RecordKind, identity.Key, message, headers)).ConfigureAwait(false);
        if (written.Failure is { } failure)
        {
            return ApiProblems.Unprocessable("Dead letter not replayed", $"Dead letter {deadLetter.Id} was not replayed and is kept: {failure}");
        }

        var handler = context.RequestServices.GetRequiredService<DeadLetterClusterHandler>();
        // No outcome kept only when too many requests gave up waiting: answer with what the check here mapped.
        var replayed = handler.Replays.TryTake(written.Position, out var applied) ? applied : checkedHere;
        return TypedResults.Json(replayed, IngestHttpJsonContext.Default.ReplayResponse);
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
