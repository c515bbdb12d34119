using System.Buffers;
using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Terms;
using Ingest.Query.Aggregation;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// Runs a <see cref="ReaggregationPlan"/>: reads the map-reduce index's groups wholly inside the query's time range
/// (all of them without one), folds each into the query's group (its keys, the time key's bucket widened to the
/// query's), aggregates the range's partial edge buckets at query time over the same index's map part and folds them
/// in too, then orders, pages and writes the rows as query-time aggregation writes them. Its cost is the groups read
/// plus the documents of the edges, not the documents of the range.
/// </summary>
internal sealed class ReaggregatedQuery
{
    private const int CancellationInterval = 1024;
    private const string EdgePrefix = "__";

    private readonly ReaggregationPlan _plan;
    private readonly QueryExecutor _executor;
    private readonly QueryParameters _parameters;

    public ReaggregatedQuery(ReaggregationPlan plan, QueryExecutor executor, QueryParameters parameters)
    {
        _plan = plan;
        _executor = executor;
        _parameters = parameters;
        var columns = new QueryColumn[plan.Aggregation.Columns.Count];
        for (var i = 0; i < columns.Length; i++)
        {
            columns[i] = new QueryColumn(plan.Aggregation.Columns[i].Name, plan.Aggregation.Columns[i].Type switch
            {
                AggregationColumnType.String => QueryColumnType.String,
                AggregationColumnType.Number => QueryColumnType.Number,
                AggregationColumnType.DateTime => QueryColumnType.DateTime,
                AggregationColumnType.Bool => QueryColumnType.Bool,
                _ => QueryColumnType.Json,
            });
        }

        OutputColumns = columns;
    }

    public IReadOnlyList<QueryColumn> OutputColumns { get; }

    public ReaggregationPlan Plan => _plan;

    /// <summary>What explain says of it.</summary>
    public string Describe()
    {
        var (full, edges) = Split();
        var range = _plan.TimeField == null
            ? "every group of the index"
            : full is { } whole
                ? $"the groups of the buckets from {Iso(whole.From)} to before {Iso(whole.To)}"
                : "no whole bucket of the index";
        var edgeText = edges.Count == 0 ? "no partial bucket" : string.Join(" and ", edges.Select(e => $"{Iso(e.From)}..{Iso(e.To)}")) + " aggregated at query time";
        return $"{range}{(_plan.RowCondition == null ? "" : ", filtered on its keys")}, combined into the query's groups; {edgeText}";
    }

    /// <summary>Writes the rows after offset, at most limit; returns the rows before offset and limit and the rows written.</summary>
    public (long Total, long Written) Write(IndexReader reader, Utf8JsonWriter writer, CancellationToken ct)
    {
        using var groups = new ReaggregatedGroups(_plan);
        var (full, edges) = Split();
        if (full is { } whole)
        {
            ReadGroups(reader, groups, whole.From, whole.To, ct);
        }

        foreach (var (edgeFrom, edgeTo) in edges)
        {
            AddEdge(reader, groups, edgeFrom, edgeTo, ct);
        }

        return _plan.Aggregation.IsFacets ? groups.WriteFacets(writer) : groups.WriteRows(writer);
    }

    /// <summary>
    /// The index buckets the range holds wholly (starts from <c>From</c>, inclusive, to <c>To</c>, exclusive; null:
    /// unbounded), and the partial edges (inclusive ticks) to aggregate at query time. Null whole part: none.
    /// </summary>
    private ((long? From, long? To)? Full, List<(long From, long To)> Edges) Split()
    {
        var edges = new List<(long From, long To)>();
        if (_plan.TimeField == null)
        {
            return ((null, null), edges);
        }

        var buckets = _plan.IndexBuckets;
        long? fullFrom = null;
        long? fullTo = null;
        if (_plan.Low is { } low)
        {
            var start = buckets.FixedBucketStart(buckets.BucketOf(low));
            fullFrom = start == low ? low : start + buckets.BucketWidthTicks;
        }

        if (_plan.High is { } high && high < DateTime.MaxValue.Ticks)
        {
            fullTo = buckets.FixedBucketStart(buckets.BucketOf(high + 1));
        }

        if (fullFrom is { } a && fullTo is { } b && a >= b)
        {
            edges.Add((_plan.Low!.Value, _plan.High!.Value));
            return (null, edges);
        }

        if (_plan.Low is { } lo && fullFrom > lo)
        {
            edges.Add((lo, fullFrom.Value - 1));
        }

        if (_plan.High is { } hi && fullTo <= hi)
        {
            edges.Add((fullTo.Value, hi));
        }

        return ((fullFrom, fullTo), edges);
    }

    private void ReadGroups(IndexReader reader, ReaggregatedGroups groups, long? from, long? to, CancellationToken ct)
    {
        var cursor = reader.ReadGroups() ?? throw new QueryException($"index '{_plan.Definition.Name}' is no longer a map-reduce index; run the query again");
        var timeKey = _plan.TimeKey;
        var values = new object?[_plan.Columns.Count];
        var seek = timeKey == 0 && from is not null;
        var read = 0L;
        for (var more = seek ? cursor.SeekFirstKey(new DateTime(from!.Value, DateTimeKind.Utc)) : cursor.MoveNext(); more; more = cursor.MoveNext())
        {
            if (++read % CancellationInterval == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            if (timeKey >= 0)
            {
                if (!cursor.TryGetKeyTicks(timeKey, out var bucket))
                {
                    continue;
                }

                if (to is { } end && bucket >= end)
                {
                    if (timeKey == 0)
                    {
                        break; // groups come in first key order: none after this one is in the range
                    }

                    continue;
                }

                if (from is { } start && bucket < start)
                {
                    continue;
                }
            }

            if (_plan.RowCondition != null)
            {
                for (var c = 0; c < values.Length; c++)
                {
                    var column = _plan.Columns[c];
                    values[c] = column.IsKey ? cursor.GetKey(column.Index) : null;
                }

                if (!_plan.RowCondition.Matches(values))
                {
                    continue;
                }
            }

            groups.Add(cursor);
        }
    }

    /// <summary>
    /// Aggregates the documents of <paramref name="from"/>..<paramref name="to"/> (inclusive ticks) at query time over
    /// the index's map part, with the query's keys and the parts its aggregates combine from, and folds the rows in.
    /// Edges hold few documents (at most a bucket's worth at each end), so writing their rows as JSON and reading them
    /// back costs little beside the groups, and keeps one way of aggregating documents.
    /// </summary>
    private void AddEdge(IndexReader reader, ReaggregatedGroups groups, long from, long to, CancellationToken ct)
    {
        if (!AnyDocumentIn(reader, from, to))
        {
            return; // the usual edge, the instant $to alone, holds no order: nothing to aggregate
        }

        var query = _plan.Query;
        var at = query.Source.Position;
        QueryFilter range = new BetweenFilter(_plan.TimeField!, new StringValue(Iso(from), at), new StringValue(Iso(to), at), at);
        var where = _plan.Rest == null ? range : new AndFilter(_plan.Rest, range, at);
        var facets = _plan.Aggregation.IsFacets;
        var passes = facets ? _plan.Aggregation.Facets.Count : 1;
        for (var pass = 0; pass < passes; pass++)
        {
            var select = new List<SelectItem>();
            IReadOnlyList<GroupByItem> groupBy;
            if (facets)
            {
                var facet = _plan.Definition.Fields[_plan.Aggregation.Facets[pass].Field];
                groupBy = [new FieldGroupBy(new FieldRef(facet.Name, false, at), at)];
                select.Add(new AggregateSelect(AggregateFunction.Count, null, EdgePrefix + "c0", at));
            }
            else
            {
                groupBy = query.GroupBy;
                for (var a = 0; a < _plan.Aggregation.Aggregates.Count; a++)
                {
                    var aggregate = _plan.Aggregation.Aggregates[a];
                    var field = aggregate.Field < 0 ? null : new FieldRef(_plan.Definition.Fields[aggregate.Field].Name, false, at);
                    select.Add(new AggregateSelect(AggregateFunction.Count, field, EdgePrefix + "c" + a.ToString(CultureInfo.InvariantCulture), at));
                    if (aggregate.Function is not AggregateFunction.Count)
                    {
                        var function = aggregate.Function == AggregateFunction.Avg ? AggregateFunction.Sum : aggregate.Function;
                        select.Add(new AggregateSelect(function, field, EdgePrefix + "v" + a.ToString(CultureInfo.InvariantCulture), at));
                    }
                }
            }

            var edge = new ParsedQuery(new QuerySource(QuerySourceKind.Collection, query.Source.Name, at), where, groupBy, select, [], null, null);
            var prepared = _executor.Prepare(edge, _plan.Definition, _parameters, null);
            var buffer = new ArrayBufferWriter<byte>(1024);
            using (var json = new Utf8JsonWriter(buffer))
            using (var results = _executor.Run(prepared, reader, ct))
            {
                json.WriteStartArray();
                var writing = results.WriteResultsAsync(json, static _ => ValueTask.CompletedTask, ct);
                writing.GetAwaiter().GetResult(); // aggregation rows are written without flushing: it completed
                json.WriteEndArray();
            }

            using var rows = JsonDocument.Parse(buffer.WrittenMemory);
            var edgeAggregation = prepared.Aggregation!;
            foreach (var row in rows.RootElement.EnumerateArray())
            {
                groups.AddEdgeRow(row, edgeAggregation, pass);
            }
        }
    }

    /// <summary>
    /// Whether any entry has a value of the time field in <paramref name="from"/>..<paramref name="to"/> (inclusive
    /// ticks): without one the edge's query-time pass matches nothing and adds nothing (without keys, its one row of
    /// zeros changes no count or sum, and avg, min and max of no value are no value), so it is not run. That pass costs
    /// a parse, a bind and a query's setup, and every dashboard panel has such an edge: the instant <c>$to</c>.
    /// </summary>
    private bool AnyDocumentIn(IndexReader reader, long from, long to)
    {
        var fields = _plan.Definition.Fields;
        var field = -1;
        for (var f = 0; f < fields.Count; f++)
        {
            if (string.Equals(fields[f].Name, _plan.TimeField!.Path, StringComparison.OrdinalIgnoreCase))
            {
                field = f;
                break;
            }
        }

        if (field < 0 || to == long.MaxValue)
        {
            return true; // not expected (the plan's time field is the index's); the pass decides
        }

        var entries = EntryListPool.Rent();
        try
        {
            reader.Range(field, IndexTerms.DateTime(from), IndexTerms.DateTime(to + 1), entries); // the upper bound is exclusive
            return entries.Count > 0;
        }
        finally
        {
            EntryListPool.Return(entries);
        }
    }

    private static string Iso(long? ticks) =>
        ticks is { } t ? new DateTime(t, DateTimeKind.Utc).ToString("yyyy-MM-dd'T'HH:mm:ss.fffffff'Z'", CultureInfo.InvariantCulture) : "unbounded";
}
