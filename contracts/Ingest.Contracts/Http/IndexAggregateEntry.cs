using System.Text.Json.Serialization;

namespace Ingest.Contracts.Http;

/// <summary>An aggregate of a map-reduce index.</summary>
/// <param name="Name">The column queries see.</param>
/// <param name="Function">"count", "sum", "min", "max", "avg" or "countDistinct".</param>
/// <param name="Field">The index field it reads; absent for a count of documents.</param>
public sealed record IndexAggregateEntry(
    string Name,
    string Function,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? Field = null);
