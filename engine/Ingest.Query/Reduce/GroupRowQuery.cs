using System.Text.Json;
using Ingest.Indexing.Storage;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// A query over a map-reduce index's rows, bound (<see cref="GroupRowBinder"/>): it reads every group once (the groups,
/// not the documents: their number is what a query costs), keeps those the condition passes, sorts them by the
/// order columns (ties, and no order at all, by group key), and writes a page of them with a keyset continuation.
/// </summary>
internal sealed class GroupRowQuery
{
    private const int CancellationInterval = 1024;

    private readonly List<GroupColumn> _columns;
    private readonly List<(int Column, string Name)> _select;
    private readonly List<(int Column, bool Descending)> _order;
    private readonly GroupCondition? _where;

    public GroupRowQuery(List<GroupColumn> columns, List<(int Column, string Name)> select, List<(int Column, bool Descending)> order, GroupCondition? where)
    {
        _columns = columns;
        _select = select;
        _order = order;
        _where = where;
        OutputColumns = [.. select.Select(s => new QueryColumn(s.Name, columns[s.Column].Type))];
    }

    public IReadOnlyList<QueryColumn> OutputColumns { get; }

    internal GroupContinuation? Resume { get; set; }

    /// <summary>What explain says of it.</summary>
    public string Describe()
    {
        var order = _order.Count == 0 ? "group key order" : string.Join(", ", _order.Select(o => $"{_columns[o.Column].Name} {(o.Descending ? "desc" : "asc")}"));
        return $"every group of the index{(_where == null ? "" : ", filtered on its columns")}, by {order}";
    }

    /// <summary>Writes the page's rows; returns the rows that passed the condition, the rows written and the next page's token.</summary>
    public (long Total, long Written, string? Continuation) Write(IndexReader reader, PreparedQuery prepared, Utf8JsonWriter writer, CancellationToken ct)
    {
        var cursor = reader.ReadGroups() ?? throw new QueryException($"index '{prepared.SourceName}' is no longer a map-reduce index; run the query again");
        var rows = new List<GroupRow>();
        var (from, to) = FirstKeyRange(_where);
        var read = 0L;
        for (var more = from is { } seekFrom ? cursor.SeekFirstKey(seekFrom) : cursor.MoveNext(); more; more = cursor.MoveNext())
        {
            if (++read % CancellationInterval == 0)
            {
                ct.ThrowIfCancellationRequested();
            }

            if (to is { } stopAfter && cursor.GetKey(0) is DateTime firstKey && firstKey > stopAfter)
            {
                break; // groups come in first key order: none after this one is in the range
            }

            var values = new object?[_columns.Count];
            for (var c = 0; c < values.Length; c++)
            {
                values[c] = _columns[c].IsKey ? cursor.GetKey(_columns[c].Index) : cursor.GetAggregate(_columns[c].Index) ?? (_columns[c].ZeroWhenNone ? 0.0 : null);
            }

            if (_where == null || _where.Matches(values))
            {
                rows.Add(new GroupRow(values, cursor.GroupKey.ToArray()));
            }
        }

        if (_order.Count > 0)
        {
            rows.Sort(Compare);
        }

        var start = 0;
        if (Resume is { } resume)
        {
            var after = new GroupRow(new object?[_columns.Count], resume.GroupKey);
            for (var i = 0; i < _order.Count; i++)
            {
                after.Values[_order[i].Column] = resume.OrderValues[i];
            }

            while (start < rows.Count && Compare(rows[start], after) <= 0)
            {
                start++;
            }
        }
        else
        {
            start = prepared.Offset;
        }

        var end = prepared.Limit is { } limit ? (int)Math.Min(rows.Count, (long)start + limit) : rows.Count;
        long written = 0;
        for (var i = start; i < end; i++)
        {
            WriteRow(writer, rows[i]);
            written++;
        }

        string? continuation = null;
        if (end < rows.Count && end > start)
        {
            var last = rows[end - 1];
            continuation = new GroupContinuation(prepared.SourceName, prepared.DefinitionFingerprint, [.. _order.Select(o => last.Values[o.Column])], last.GroupKey).Encode();
        }

        return (rows.Count, written, continuation);
    }

    private int Compare(GroupRow x, GroupRow y)
    {
        foreach (var (column, descending) in _order)
        {
            var c = GroupValues.Compare(x.Values[column], y.Values[column]);
            if (c != 0)
            {
                return descending ? -c : c;
            }
        }

        return x.GroupKey.AsSpan().SequenceCompareTo(y.GroupKey);
    }

    /// <summary>
    /// The bounds a where clause puts on a datetime or time bucket first group key through its top-level conjuncts
    /// (between, >=, >, <=, <), which let the groups be read from the lower one and stop past the upper one.
    /// </summary>
    private (DateTime? From, DateTime? To) FirstKeyRange(GroupCondition? where)
    {
        DateTime? from = null;
        DateTime? to = null;
        var first = _columns.FindIndex(c => c.IsKey && c.Index == 0 && c.Type == QueryColumnType.DateTime);
        if (first < 0)
        {
            return (null, null);
        }

        void Visit(GroupCondition? condition)
        {
            if (condition is null)
            {
                return;
            }

            if (condition.Kind == GroupConditionKind.And)
            {
                Visit(condition.Left);
                Visit(condition.Right);
                return;
            }

            if (condition.Column != first)
            {
                return;
            }

            switch (condition.Kind)
            {
                case GroupConditionKind.Between when condition.Values is [DateTime low, DateTime high]:
                    from = from is { } f && f > low ? f : low;
                    to = to is { } t && t < high ? t : high;
                    break;
                case GroupConditionKind.Greater or GroupConditionKind.GreaterOrEqual when condition.Values is [DateTime low]:
                    from = from is { } f2 && f2 > low ? f2 : low;
                    break;
                case GroupConditionKind.Less or GroupConditionKind.LessOrEqual when condition.Values is [DateTime high]:
                    to = to is { } t2 && t2 < high ? t2 : high;
                    break;
                default:
                    break;
            }
        }

        Visit(where);
        return (from, to);
    }

    private void WriteRow(Utf8JsonWriter writer, GroupRow row)
    {
        writer.WriteStartObject();
        foreach (var (column, name) in _select)
        {
            switch (row.Values[column])
            {
                case null: writer.WriteNull(name); break;
                case string s: writer.WriteString(name, s); break;
                case double d: writer.WriteNumber(name, d); break;
                case long l: writer.WriteNumber(name, l); break;
                case DateTime t: writer.WriteString(name, t); break;
                case bool b: writer.WriteBoolean(name, b); break;
                default: throw new InvalidOperationException($"A group row holds a {row.Values[column]!.GetType()}.");
            }
        }

        writer.WriteEndObject();
    }
}
