using System.Globalization;
using System.Text;
using System.Text.Json.Nodes;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// Merges grouped (or whole-match-set) aggregates. Each shard answers every group it has, unordered and unpaged, with
/// each aggregate in parts that add up: count and count(F) add, sum adds, min and max take the extreme, avg travels
/// as sum(F) and count(F) and is divided once at the end. Groups are then ordered as one node orders them (order by
/// items, ties by the keys ascending; by the keys alone without order by) and paged (offset, limit). A document lives
/// on one shard, so a group's parts never count a document twice, even for a multi-valued key.
/// </summary>
internal sealed class GroupMerge
{
    private readonly ParsedQuery _query;
    private readonly (FieldRef Field, string Column, IndexFieldType Type)[] _keys;
    private readonly AggregateSelect[] _aggregates;
    private readonly Dictionary<string, Group> _groups = new(StringComparer.Ordinal);

    public GroupMerge(ParsedQuery query)
    {
        _query = query;
        _keys = query.GroupBy.Select(g => g switch
        {
            FieldGroupBy f => (f.Field, f.Field.Path, ScaleOutIndex.Field(f.Field.Path).Type),
            TimeGroupBy t => (t.Field, "time", IndexFieldType.DateTime),
            _ => throw new InvalidOperationException(g.GetType().Name),
        }).ToArray();
        _aggregates = query.Select.OfType<AggregateSelect>()
            .Concat(query.OrderBy.Where(o => o.Aggregate != null).Select(o => o.Aggregate!))
            .GroupBy(Name, StringComparer.Ordinal)
            .Select(g => g.First())
            .ToArray();
    }

    /// <summary>Every group of the shard, its aggregates in parts under hidden names; no order, limit or offset.</summary>
    public ParsedQuery ShardQuery()
    {
        var select = new List<SelectItem>();
        for (var j = 0; j < _aggregates.Length; j++)
        {
            var a = _aggregates[j];
            switch (a.Function)
            {
                case AggregateFunction.Avg:
                    select.Add(Part(AggregateFunction.Sum, a.Field, "__s", j));
                    select.Add(Part(AggregateFunction.Count, a.Field, "__n", j));
                    break;
                case AggregateFunction.Sum:
                    select.Add(Part(AggregateFunction.Sum, a.Field, "__s", j));
                    break;
                case AggregateFunction.Count:
                    select.Add(Part(AggregateFunction.Count, a.Field, "__n", j));
                    break;
                default:
                    select.Add(Part(a.Function, a.Field, "__m", j));
                    break;
            }
        }

        return _query with { Select = select, OrderBy = [], Limit = null, Offset = null };
    }

    public void Add(JsonObject row)
    {
        var key = new StringBuilder();
        foreach (var (_, column, _) in _keys)
        {
            key.Append(row[column]?.ToJsonString()).Append('\u0001');
        }

        if (!_groups.TryGetValue(key.ToString(), out var group))
        {
            group = new Group(_keys.Select(k => row[k.Column]?.DeepClone()).ToArray(), _aggregates.Length);
            _groups.Add(key.ToString(), group);
        }

        for (var j = 0; j < _aggregates.Length; j++)
        {
            var a = _aggregates[j];
            if (a.Function is AggregateFunction.Count or AggregateFunction.Avg)
            {
                group.Counts[j] += (long)MergedValue.Number(row[Column("__n", j)]!);
            }

            if (a.Function is AggregateFunction.Sum or AggregateFunction.Avg)
            {
                group.Sums[j] += MergedValue.Number(row[Column("__s", j)]!);
            }

            if (a.Function is AggregateFunction.Min or AggregateFunction.Max && row[Column("__m", j)] is { } value)
            {
                var order = MergedValue.Compare(value, group.Extremes[j], Type(a));
                if (group.Extremes[j] == null || (a.Function == AggregateFunction.Min ? order < 0 : order > 0))
                {
                    group.Extremes[j] = value.DeepClone();
                }
            }
        }
    }

    public MergedPage Result()
    {
        var groups = _groups.Values.ToList();
        groups.Sort(CompareGroups);
        var offset = _query.Offset is NumberValue o ? (int)o.Value : 0;
        var limit = _query.Limit is NumberValue l ? (int)l.Value : int.MaxValue;
        var rows = new List<JsonObject>();
        foreach (var group in groups.Skip(offset).Take(limit))
        {
            var row = new JsonObject();
            for (var k = 0; k < _keys.Length; k++)
            {
                if (!_query.Select.Any(s => s is FieldSelect f && SameField(f.Field, _keys[k].Field)))
                {
                    row[_keys[k].Column] = group.Keys[k]?.DeepClone();
                }
            }

            foreach (var item in _query.Select)
            {
                row[item.Name] = item switch
                {
                    FieldSelect f => group.Keys[Array.FindIndex(_keys, k => SameField(k.Field, f.Field))]?.DeepClone(),
                    AggregateSelect a => Value(group, Index(a)),
                    _ => throw new InvalidOperationException(item.GetType().Name),
                };
            }

            rows.Add(row);
        }

        return new MergedPage(rows, groups.Count, null);
    }

    private int CompareGroups(Group a, Group b)
    {
        foreach (var item in _query.OrderBy)
        {
            int order;
            if (item.Aggregate != null)
            {
                var j = Index(item.Aggregate);
                order = MergedValue.Compare(Value(a, j), Value(b, j), Type(item.Aggregate), item.Descending);
            }
            else
            {
                var k = Array.FindIndex(_keys, key => SameField(key.Field, item.Field!));
                order = MergedValue.Compare(a.Keys[k], b.Keys[k], _keys[k].Type, item.Descending);
            }

            if (order != 0)
            {
                return order;
            }
        }

        for (var k = 0; k < _keys.Length; k++)
        {
            var order = MergedValue.Compare(a.Keys[k], b.Keys[k], _keys[k].Type);
            if (order != 0)
            {
                return order;
            }
        }

        return 0;
    }

    private JsonNode? Value(Group group, int j) => _aggregates[j].Function switch
    {
        AggregateFunction.Count => JsonValue.Create(group.Counts[j]),
        AggregateFunction.Sum => JsonValue.Create(group.Sums[j]),
        AggregateFunction.Avg => group.Counts[j] == 0 ? null : JsonValue.Create(group.Sums[j] / group.Counts[j]),
        _ => group.Extremes[j]?.DeepClone(),
    };

    private int Index(AggregateSelect aggregate) => Array.FindIndex(_aggregates, a => Name(a) == Name(aggregate));

    private static IndexFieldType Type(AggregateSelect aggregate) =>
        aggregate.Function is AggregateFunction.Min or AggregateFunction.Max && aggregate.Field != null
            ? ScaleOutIndex.Field(aggregate.Field.Path).Type
            : IndexFieldType.Number;

    private static string Name(AggregateSelect a) => QueryFormatter.FormatAggregate(a.Function, a.Field);

    private static bool SameField(FieldRef a, FieldRef b) => string.Equals(a.Path, b.Path, StringComparison.OrdinalIgnoreCase);

    private static string Column(string prefix, int j) => prefix + j.ToString(CultureInfo.InvariantCulture);

    private static AggregateSelect Part(AggregateFunction function, FieldRef? field, string prefix, int j) => new(function, field, Column(prefix, j), default);

    private sealed class Group(JsonNode?[] keys, int aggregates)
    {
        public JsonNode?[] Keys { get; } = keys;

        public long[] Counts { get; } = new long[aggregates];

        public double[] Sums { get; } = new double[aggregates];

        public JsonNode?[] Extremes { get; } = new JsonNode?[aggregates];
    }
}
