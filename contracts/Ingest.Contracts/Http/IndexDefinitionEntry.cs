using System.Text.Json.Serialization;

namespace Ingest.Contracts.Http;

/// <summary>An index definition: the collections it covers and the fields taken from each document.</summary>
/// <param name="Name">The index's name (ASCII letters, digits, '/', '-', '_', '.'; e.g. <c>Orders/ByCustomer</c>).</param>
/// <param name="Collections">The collections whose documents it indexes.</param>
/// <param name="Fields">The indexed fields, in order.</param>
public sealed record IndexDefinitionEntry(string Name, IReadOnlyList<string> Collections, IReadOnlyList<IndexFieldEntry> Fields)
{
    /// <summary>A map-reduce index's group keys and aggregates; absent for a map index.</summary>
    [JsonIgnore(Condition = JsonIgnoreCondition.WhenWritingNull)]
    public IndexReduceEntry? Reduce { get; init; }
}
