using System.Buffers;
using System.Collections;
using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>
/// A <see cref="ResultTable"/>'s rows over one rented array of cells, row after row: a panel's 5,000 rows were 5,000
/// arrays (half a MiB) per query. Returned to the pool on dispose, with the table.
/// </summary>
internal sealed class ResultRows : IReadOnlyList<ResultRow>, IDisposable
{
    private readonly int _width;
    private JsonElement?[] _cells;

    /// <param name="count">Rows.</param>
    /// <param name="width">Cells per row.</param>
    public ResultRows(int count, int width)
    {
        Count = count;
        _width = width;
        _cells = count * width == 0 ? [] : ArrayPool<JsonElement?>.Shared.Rent(count * width);
        Array.Clear(_cells);
    }

    public int Count { get; }

    public ResultRow this[int index] =>
        (uint)index < (uint)Count ? new ResultRow(_cells, index * _width, _width) : throw new ArgumentOutOfRangeException(nameof(index));

    /// <summary>Sets cell <paramref name="column"/> of row <paramref name="row"/>.</summary>
    public void Set(int row, int column, JsonElement? value) => _cells[(row * _width) + column] = value;

    public IEnumerator<ResultRow> GetEnumerator()
    {
        for (var i = 0; i < Count; i++)
        {
            yield return new ResultRow(_cells, i * _width, _width);
        }
    }

    IEnumerator IEnumerable.GetEnumerator() => GetEnumerator();

    public void Dispose()
    {
        if (_cells.Length > 0)
        {
            ArrayPool<JsonElement?>.Shared.Return(_cells, clearArray: true);
        }

        _cells = [];
    }
}
