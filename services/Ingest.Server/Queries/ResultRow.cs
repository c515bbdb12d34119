using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>One row of a <see cref="ResultTable"/>: one value per column (null where the row has none), a slice of the table's cells.</summary>
internal readonly struct ResultRow
{
    private readonly JsonElement?[] _cells;
    private readonly int _start;

    public ResultRow(JsonElement?[] cells, int start, int length)
    {
        _cells = cells;
        _start = start;
        Length = length;
    }

    public int Length { get; }

    public JsonElement? this[int column] =>
        (uint)column < (uint)Length ? _cells[_start + column] : throw new ArgumentOutOfRangeException(nameof(column));
}
