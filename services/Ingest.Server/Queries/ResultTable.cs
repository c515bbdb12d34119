using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Reduce;
using Ingest.Query;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Server.Queries;

/// <summary>
/// A query's results read whole, as columns and rows, for the formats Grafana reads (the JSON data source's series and
/// tables, and the <c>rows</c> and <c>csv</c> formats of <c>/queries</c> that Infinity reads), at most
/// <see cref="MaxRows"/> documents or projections. Documents are flattened to their id and top-level properties. A query grouped
/// by <c>time()</c> with at least one aggregate is a time series: <see cref="TimeColumn"/> is its bucket, the other key
/// columns name the series and each value column gives one series per group. So is a <c>from index</c> query on a
/// map-reduce index with a time bucket key (<c>groupBy</c> with an <c>interval</c>) among its columns and at least one
/// aggregate: the bucket key is the time, the aggregates are the values, the other keys split the series.
/// The cells are elements of the rows' JSON, held in pooled memory until the table is disposed (once written).
/// </summary>
internal sealed class ResultTable : IDisposable
{
    /// <summary>Rows a table gets at most from a query without a smaller <c>limit</c> (a table panel shows no more).</summary>
    public const int MaxRows = 10_000;

    private JsonDocument? _document;
    private PooledBufferWriter? _buffer;

    private ResultTable(IReadOnlyList<ResultColumn> columns, ResultRows rows, int timeColumn, long totalResults)
    {
        Columns = columns;
        Rows = rows;
        TimeColumn = timeColumn;
        TotalResults = totalResults;
    }

    public IReadOnlyList<ResultColumn> Columns { get; }

    /// <summary>One value per column; null where the row has no such property.</summary>
    public ResultRows Rows { get; }

    /// <summary>The column holding the <c>time()</c> bucket of a time series, or -1 when the results are a table.</summary>
    public int TimeColumn { get; }

    public bool IsTimeSeries => TimeColumn >= 0;

    public long TotalResults { get; }

    /// <summary>Documents and projections get a <c>limit</c> of at most <see cref="MaxRows"/>; aggregations are left as they are.</summary>
    public static ParsedQuery CapRows(ParsedQuery query)
    {
        ArgumentNullException.ThrowIfNull(query);
        var aggregated = query.GroupBy.Count > 0 || query.Select.Any(static s => s is AggregateSelect or FacetSelect);
        if (aggregated || query.Limit is NumberValue { Value: <= MaxRows })
        {
            return query;
        }

        if (query.Limit is ParameterValue)
        {
            return query;
        }

        var at = query.Limit?.Position ?? default;
        return query with { Limit = new NumberValue(MaxRows, MaxRows.ToString(CultureInfo.InvariantCulture), at) };
    }

    /// <summary>The reduce of the map-reduce index <paramref name="query"/> reads with <c>from index</c>, else null.</summary>
    public static ReduceDefinition? ReduceOf(QueryEngine engine, ParsedQuery query)
    {
        ArgumentNullException.ThrowIfNull(engine);
        ArgumentNullException.ThrowIfNull(query);
        return query.Source.Kind == QuerySourceKind.Index ? engine.Indexes.GetStatus(query.Source.Name)?.Definition.Reduce : null;
    }

    /// <summary>
    /// Writes <paramref name="execution"/>'s rows to memory and reads them back as a table; <paramref name="reduce"/> is
    /// the map-reduce index the query reads (<see cref="ReduceOf"/>), whose aggregates are values and time keys the time.
    /// </summary>
    public static async Task<ResultTable> ReadAsync(RunningQuery execution, ParsedQuery query, ReduceDefinition? reduce, CancellationToken ct)
    {
        ArgumentNullException.ThrowIfNull(execution);
        ArgumentNullException.ThrowIfNull(query);
        // The rows stay in the pooled buffer, and their cells in the document parsed over it, until the table is
        // disposed: neither a copy of the document nor the arrays a growing buffer goes through are allocated.
        var buffer = new PooledBufferWriter(16 * 1024);
        JsonDocument? document = null;
        try
        {
            await using (var writer = new Utf8JsonWriter(buffer))
            {
                writer.WriteStartArray();
                await execution.Results.WriteResultsAsync(writer, static _ => ValueTask.CompletedTask, ct).ConfigureAwait(false);
                writer.WriteEndArray();
            }

            document = JsonDocument.Parse(buffer.WrittenMemory);
            var results = execution.Results;
            var table = results.Shape == QueryResultShape.Documents
                ? FromDocuments(document.RootElement, results.TotalResults)
                : FromRows(document.RootElement, results.Columns, query, reduce, results.TotalResults);
            (table._document, table._buffer) = (document, buffer);
            return table;
        }
        catch
        {
            document?.Dispose();
            buffer.Dispose();
            throw;
        }
    }

    /// <summary>Returns the rows' memory: no cell may be read after.</summary>
    public void Dispose()
    {
        Rows.Dispose();
        _document?.Dispose();
        _buffer?.Dispose();
        (_document, _buffer) = (null, null);
    }

    private static ResultTable FromRows(JsonElement array, IReadOnlyList<QueryColumn> queryColumns, ParsedQuery query, ReduceDefinition? reduce, long total)
    {
        var aggregates = query.Select.OfType<AggregateSelect>().Select(static a => a.Name).ToHashSet(StringComparer.Ordinal);
        if (reduce is not null && query.GroupBy.Count == 0)
        {
            // Rows of the index's groups: a column named as an aggregate holds its value (a select keeps the names).
            aggregates.UnionWith(reduce.Aggregates.Select(static a => a.Name));
        }

        var columns = queryColumns.Select(c => new ResultColumn(c.Name, c.Type, aggregates.Contains(c.Name))).ToArray();
        var rows = new ResultRows(array.GetArrayLength(), columns.Length);
        var r = 0;
        foreach (var row in array.EnumerateArray())
        {
            for (var i = 0; i < columns.Length; i++)
            {
                rows.Set(r, i, row.TryGetProperty(columns[i].Name, out var value) ? value : null);
            }

            r++;
        }

        return new ResultTable(columns, rows, FindTimeColumn(columns, query, reduce), total);
    }

    /// <summary>
    /// The bucket column of a <c>group by time(...)</c> query with aggregates: the key column of type datetime (named
    /// <c>time</c> unless the query selects the key under another name); for the groups of a map-reduce index, the first
    /// column that is one of its time bucket keys.
    /// </summary>
    private static int FindTimeColumn(ResultColumn[] columns, ParsedQuery query, ReduceDefinition? reduce)
    {
        if (!columns.Any(static c => c.IsValue))
        {
            return -1;
        }

        if (reduce is not null && query.GroupBy.Count == 0)
        {
            var buckets = reduce.GroupBy.Where(static k => k.Interval is not null).Select(static k => k.Name).ToHashSet(StringComparer.Ordinal);
            return Array.FindIndex(columns, c => !c.IsValue && buckets.Contains(c.Name));
        }

        if (!query.GroupBy.OfType<TimeGroupBy>().Any())
        {
            return -1;
        }

        var keys = Enumerable.Range(0, columns.Length).Where(i => !columns[i].IsValue && columns[i].Type == QueryColumnType.DateTime).ToList();
        var named = keys.FindIndex(i => columns[i].Name == "time");
        return named >= 0 ? keys[named] : keys.Count > 0 ? keys[0] : -1;
    }

    private static ResultTable FromDocuments(JsonElement array, long total)
    {
        var names = new List<string> { "id" };
        var index = new Dictionary<string, int>(StringComparer.Ordinal) { ["id"] = 0 };
        var parsed = new List<Dictionary<int, JsonElement>>(array.GetArrayLength());
        foreach (var row in array.EnumerateArray())
        {
            var values = new Dictionary<int, JsonElement> { [0] = row.GetProperty("id") };
            if (row.TryGetProperty("document", out var body) && body.ValueKind == JsonValueKind.Object)
            {
                foreach (var property in body.EnumerateObject())
                {
                    if (!index.TryGetValue(property.Name, out var column))
                    {
                        column = names.Count;
                        index.Add(property.Name, column);
                        names.Add(property.Name);
                    }

                    values.TryAdd(column, property.Value);
                }
            }

            parsed.Add(values);
        }

        var columns = new ResultColumn[names.Count];
        var rows = new ResultRows(parsed.Count, names.Count);
        for (var r = 0; r < parsed.Count; r++)
        {
            foreach (var (column, value) in parsed[r])
            {
                rows.Set(r, column, value);
            }
        }

        for (var i = 0; i < columns.Length; i++)
        {
            columns[i] = new ResultColumn(names[i], InferType(rows, i), IsValue: false);
        }

        return new ResultTable(columns, rows, -1, total);
    }

    /// <summary>A document property's type: one JSON kind in every row that has it (nulls aside), else JSON.</summary>
    private static QueryColumnType InferType(ResultRows rows, int column)
    {
        QueryColumnType? type = null;
        foreach (var row in rows)
        {
            if (row[column] is not { } value || value.ValueKind == JsonValueKind.Null)
            {
                continue;
            }

            var kind = value.ValueKind switch
            {
                JsonValueKind.String => value.TryGetDateTimeOffset(out _) ? QueryColumnType.DateTime : QueryColumnType.String,
                JsonValueKind.Number => QueryColumnType.Number,
                JsonValueKind.True or JsonValueKind.False => QueryColumnType.Bool,
                _ => QueryColumnType.Json,
            };

            if (type is { } seen && seen != kind)
            {
                // Dates among other strings make a string column; any other mix is shown as JSON.
                if (seen is not (QueryColumnType.String or QueryColumnType.DateTime) || kind is not (QueryColumnType.String or QueryColumnType.DateTime))
                {
                    return QueryColumnType.Json;
                }

                kind = QueryColumnType.String;
            }

            type = kind;
        }

        return type ?? QueryColumnType.Json;
    }
}
