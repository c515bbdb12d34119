using System.Text.Json.Nodes;

namespace Ingest.Query.Tests.Model;

/// <summary>
/// What the brute-force evaluator expects: for a documents query the page's document ids (and, with select, the
/// projected rows); for an aggregation the rows. <see cref="Total"/> is totalResults.
/// </summary>
internal sealed record ModelResult(ModelResultKind Kind, List<ModelDocument> Documents, List<JsonObject> Rows, long Total);
