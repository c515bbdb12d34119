using System.Text.Json.Serialization;

namespace Ingest.Contracts.Http;

/// <summary>A group key of a map-reduce index.</summary>
/// <param name="Name">The column queries see.</param>
/// <param name="Field">The index field whose values group the documents.</param>
/// <param name="Interval">For a datetime field: the time bucket width (<c>5m</c>, <c>1h</c>, <c>1d</c>, <c>1w</c>).</param>
public sealed record IndexGroupKeyEntry(
    string Name,
    string Field,
    [property: JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)] string? Interval = null);
