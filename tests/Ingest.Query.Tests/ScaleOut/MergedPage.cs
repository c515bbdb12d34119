using System.Text.Json.Nodes;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// A merged answer: rows as the client sees them, totalResults, the continuation of the next page (null on the last),
/// and for documents each row's id (a projection need not select it; the test matches rows by it).
/// </summary>
internal sealed record MergedPage(List<JsonObject> Rows, long Total, string? Continuation, List<string>? Ids = null);
