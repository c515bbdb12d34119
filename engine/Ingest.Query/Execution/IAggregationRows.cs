using System.Text.Json;

namespace Ingest.Query.Execution;

/// <summary>Computed rows of an <see cref="IQueryAggregation"/>, held until the results are written.</summary>
public interface IAggregationRows : IDisposable
{
    int Count { get; }

    /// <summary>Writes row <paramref name="index"/> (0-based, in order) as one JSON object.</summary>
    void WriteRow(int index, Utf8JsonWriter writer);
}
