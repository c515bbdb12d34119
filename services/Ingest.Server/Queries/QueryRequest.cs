using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>
/// A query as a request gives it: the text, its <c>$parameters</c> as JSON values, how long to wait for the index to
/// catch up (null: answer at once, stale or not), the continuation token of the previous page, and the time budget the
/// request asks for (null: the server's; never more than it).
/// </summary>
internal sealed record QueryRequest(string Text, IReadOnlyDictionary<string, JsonElement> Parameters, TimeSpan? WaitForNonStale, string? Continuation, TimeSpan? Timeout = null);
