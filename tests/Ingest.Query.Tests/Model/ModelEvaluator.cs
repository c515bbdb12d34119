using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Model;

/// <summary>
/// The obviously-correct evaluation of a query over raw JSON documents: every document, every filter, every group
/// computed directly from QUERY_API.md "Binding and semantics" and "Aggregation", with no index, no posting list, no
/// column. Slow and simple on purpose.
/// </summary>
internal sealed class ModelEvaluator
{
    private readonly IndexDefinition _index;
    private readonly List<ModelDocument> _documents;
    private readonly Dictionary<(int Document, string Field), ModelFieldValues> _values = [];
    private IReadOnlyDictionary<string, JsonElement> _parameters = new Dictionary<string, JsonElement>();

    public ModelEvaluator(IndexDefinition index, List<ModelDocument> documents)
    {
        _index = index;
        _documents = documents;
    }

    public ModelResult Evaluate(ParsedQuery query, IReadOnlyDictionary<string, JsonElement> parameters)
    {
        _parameters = parameters;
        var matches = _documents.Where(d => query.Where == null || Matches(d, query.Where)).ToList();
        var offset = query.Offset == null ? 0 : (int)Resolve(query.Offset).GetDouble();
        int? limit = query.Limit == null ? null : (int)Resolve(query.Limit).GetDouble();
        var isAggregation = query.GroupBy.Count > 0 || query.Select.Any(s => s is AggregateSelect or FacetSelect);
        if (isAggregation)
        {
            var rows = query.Select.Any(s => s is FacetSelect) ? Facets(query, matches) : Groups(query, matches);
            return new ModelResult(ModelResultKind.Aggregation, [], Page(rows, offset, limit), rows.Count);
        }

        if (query.OrderBy.Count > 0)
        {
            matches.Sort((a, b) => CompareForOrder(a, b, query.OrderBy));
        }
        else if (query.Source.Kind == QuerySourceKind.Collection)
        {
            // A collection scan (a query naming no field) returns documents in etag order.
            matches.Sort((a, b) => a.EtagOrder.CompareTo(b.EtagOrder));
        }

        var page = Page(matches, offset, limit);
        if (query.Select.Count == 0)
        {
            return new ModelResult(ModelResultKind.Documents, page, [], matches.Count);
        }

        var projected = page.Select(d => Project(d, query.Select)).ToList();
        return new ModelResult(ModelResultKind.Projection, page, projected, matches.Count);
    }

    private static List<T> Page<T>(List<T> items, int offset, int? limit) =>
        items.Skip(offset).Take(limit ?? int.MaxValue).ToList();

    // ---- filters ----

    private bool Matches(ModelDocument document, QueryFilter filter) => filter switch
    {
        AndFilter a => Matches(document, a.Left) && Matches(document, a.Right),
        OrFilter o => Matches(document, o.Left) || Matches(document, o.Right),
        NotFilter n => !Matches(document, n.Operand),
        ExistsFilter e => e.Field.IsDocumentId || Values(document, e.Field).Exists,
        ComparisonFilter c => Compare(document, c),
        BetweenFilter b => AnyValue(document, b.Field, v => ModelValues.Compare(v, Literal(b.Low, b.Field)) >= 0 && ModelValues.Compare(v, Literal(b.High, b.Field)) <= 0),
        InFilter i => In(document, i),
        StartsWithFilter s => AnyValue(document, s.Field, v => ((byte[])v).AsSpan().StartsWith((byte[])Literal(s.Prefix, s.Field))),
        SearchFilter s => Search(document, s),
        _ => throw new InvalidOperationException(filter.GetType().Name),
    };

    private bool Compare(ModelDocument document, ComparisonFilter c)
    {
        var literal = Resolve(c.Value);
        if (literal.ValueKind == JsonValueKind.Null)
        {
            var isNull = c.Field.IsDocumentId ? false : Values(document, c.Field).HasNull;
            var exists = c.Field.IsDocumentId || Values(document, c.Field).Exists;
            return c.Operator switch
            {
                ComparisonOperator.Equal => isNull,
                ComparisonOperator.NotEqual => exists,
                _ => throw new InvalidOperationException("null takes = and != only"),
            };
        }

        if (c.Operator == ComparisonOperator.NotEqual)
        {
            return !Compare(document, c with { Operator = ComparisonOperator.Equal });
        }

        var value = Literal(c.Value, c.Field);
        return AnyValue(document, c.Field, v =>
        {
            var order = ModelValues.Compare(v, value);
            return c.Operator switch
            {
                ComparisonOperator.Equal => order == 0,
                ComparisonOperator.Less => order < 0,
                ComparisonOperator.LessOrEqual => order <= 0,
                ComparisonOperator.Greater => order > 0,
                _ => order >= 0,
            };
        });
    }

    private bool In(ModelDocument document, InFilter filter)
    {
        var literals = new List<JsonElement>();
        foreach (var value in filter.Values)
        {
            var json = Resolve(value);
            if (value is ParameterValue && json.ValueKind == JsonValueKind.Array)
            {
                literals.AddRange(json.EnumerateArray());
            }
            else
            {
                literals.Add(json);
            }
        }

        var field = filter.Field.IsDocumentId ? null : Definition(filter.Field);
        if (literals.Any(l => l.ValueKind == JsonValueKind.Null) && !filter.Field.IsDocumentId && Values(document, filter.Field).HasNull)
        {
            return true;
        }

        var wanted = literals.Where(l => l.ValueKind != JsonValueKind.Null).Select(l => field == null ? DocumentIdValue(l) : ModelValues.Literal(l, field)).ToList();
        return AnyValue(document, filter.Field, v => wanted.Any(w => ModelValues.Compare(v, w) == 0));
    }

    private bool Search(ModelDocument document, SearchFilter filter)
    {
        var words = ModelValues.Words(Resolve(filter.Words).GetString()!);
        return AnyValue(document, filter.Field, v => words.Any(w => ModelValues.Compare(v, w) == 0));
    }

    private bool AnyValue(ModelDocument document, FieldRef field, Func<object, bool> predicate)
    {
        if (field.IsDocumentId)
        {
            return predicate(ModelValues.Keyword(document.Id, exactCase: false));
        }

        return Values(document, field).Values.Any(predicate);
    }

    // ---- order ----

    /// <summary>
    /// Keys in turn: numbers and dates by their first value in document order, keywords and bools by their smallest
    /// value (folded bytes), the id by its folded bytes; a document without a value last in both directions; ties by
    /// entry order.
    /// </summary>
    private int CompareForOrder(ModelDocument a, ModelDocument b, IReadOnlyList<OrderByItem> keys)
    {
        foreach (var key in keys)
        {
            var x = SortValue(a, key.Field!);
            var y = SortValue(b, key.Field!);
            if (x == null || y == null)
            {
                if (x != null || y != null)
                {
                    return x == null ? 1 : -1;
                }

                continue;
            }

            var order = ModelValues.Compare(x, y);
            if (order != 0)
            {
                return key.Descending ? -order : order;
            }
        }

        return a.EntryOrder.CompareTo(b.EntryOrder);
    }

    private object? SortValue(ModelDocument document, FieldRef field)
    {
        if (field.IsDocumentId)
        {
            return ModelValues.Keyword(document.Id, exactCase: false);
        }

        var values = Values(document, field).Values;
        if (values.Count == 0)
        {
            return null;
        }

        return Definition(field).Type is IndexFieldType.Number or IndexFieldType.DateTime
            ? values[0]
            : values.Aggregate((m, v) => ModelValues.Compare(v, m) < 0 ? v : m);
    }

    // ---- projection ----

    /// <summary>Each select item's value as written in the document at its path (an index field's name reads that field's path).</summary>
    private static JsonObject Project(ModelDocument document, IReadOnlyList<SelectItem> select)
    {
        var row = new JsonObject();
        foreach (FieldSelect item in select)
        {
            if (item.Field.IsDocumentId)
            {
                row[item.Name] = document.Id;
                continue;
            }

            var field = ModelIndex.Definition.Fields.FirstOrDefault(f => f.Name.Equals(item.Field.Path, StringComparison.OrdinalIgnoreCase));
            var steps = ModelValues.Steps(field?.Path ?? item.Field.Path);
            var found = new List<JsonElement>();
            Reach(document.Root, steps, 0, found);
            row[item.Name] = steps.Contains(null)
                ? new JsonArray(found.Select(e => JsonNode.Parse(e.GetRawText())).ToArray())
                : found.Count == 0 ? null : JsonNode.Parse(found[0].GetRawText());
        }

        return row;
    }

    private static void Reach(JsonElement element, List<string?> steps, int step, List<JsonElement> found)
    {
        if (step == steps.Count)
        {
            found.Add(element);
            return;
        }

        if (steps[step] is { } name)
        {
            if (element.ValueKind == JsonValueKind.Object && element.TryGetProperty(name, out var child))
            {
                Reach(child, steps, step + 1, found);
            }
        }
        else if (element.ValueKind == JsonValueKind.Array)
        {
            foreach (var item in element.EnumerateArray())
            {
                Reach(item, steps, step + 1, found);
            }
        }
    }

    // ---- aggregation ----

    private List<JsonObject> Groups(ParsedQuery query, List<ModelDocument> matches)
    {
        // Each document's keys: every combination of its distinct values of the group fields (time: its first value's bucket).
        var groups = new Dictionary<string, (object[] Keys, List<ModelDocument> Documents)>();
        foreach (var document in matches)
        {
            var combinations = new List<object[]> { Array.Empty<object>() };
            foreach (var item in query.GroupBy)
            {
                var keyValues = KeyValues(document, item);
                combinations = combinations.SelectMany(c => keyValues.Select(v => c.Append(v).ToArray())).ToList();
            }

            foreach (var keys in combinations)
            {
                var id = string.Join("|", keys.Select(KeyText));
                if (!groups.TryGetValue(id, out var group))
                {
                    group = (keys, []);
                    groups[id] = group;
                }

                group.Documents.Add(document);
            }
        }

        if (query.GroupBy.Count == 0)
        {
            groups[""] = ([], matches);
        }

        var ordered = groups.Values.ToList();
        ordered.Sort((a, b) =>
        {
            foreach (var key in query.OrderBy)
            {
                var x = key.Aggregate != null ? AggregateValue(key.Aggregate, a.Documents) : a.Keys[GroupIndex(query, key.Field!)];
                var y = key.Aggregate != null ? AggregateValue(key.Aggregate, b.Documents) : b.Keys[GroupIndex(query, key.Field!)];
                var order = CompareNullable(x, y);
                if (order != 0)
                {
                    return key.Descending ? -order : order;
                }
            }

            for (var i = 0; i < a.Keys.Length; i++)
            {
                var order = ModelValues.Compare(a.Keys[i], b.Keys[i]);
                if (order != 0)
                {
                    return order;
                }
            }

            return 0;
        });

        return ordered.Select(g => GroupRow(query, g.Keys, g.Documents)).ToList();
    }

    private JsonObject GroupRow(ParsedQuery query, object[] keys, List<ModelDocument> documents)
    {
        var row = new JsonObject();
        for (var i = 0; i < query.GroupBy.Count; i++)
        {
            var item = query.GroupBy[i];
            if (item is FieldGroupBy f && query.Select.Any(s => s is FieldSelect fs && SameField(fs.Field, f.Field)))
            {
                continue;
            }

            row[item is TimeGroupBy ? "time" : ((FieldGroupBy)item).Field.Path] = JsonValue(ModelValues.Output(keys[i]));
        }

        foreach (var item in query.Select)
        {
            row[item.Name] = item switch
            {
                FieldSelect f => JsonValue(ModelValues.Output(keys[GroupIndex(query, f.Field)])),
                AggregateSelect a => JsonValue(AggregateValue(a, documents) is { } v ? ModelValues.Output(v) : null),
                _ => throw new InvalidOperationException(item.GetType().Name),
            };
        }

        return row;
    }

    private static string KeyText(object key) => key switch
    {
        byte[] bytes => "k" + Convert.ToHexString(bytes),
        double d => "n" + d.ToString("R", CultureInfo.InvariantCulture),
        _ => key.GetType().Name + Convert.ToString(key, CultureInfo.InvariantCulture),
    };

    private static int GroupIndex(ParsedQuery query, FieldRef field)
    {
        for (var i = 0; i < query.GroupBy.Count; i++)
        {
            if (query.GroupBy[i] is FieldGroupBy f && SameField(f.Field, field))
            {
                return i;
            }
        }

        throw new InvalidOperationException($"'{field.Path}' is not a group key");
    }

    private static bool SameField(FieldRef a, FieldRef b) => a.Path.Equals(b.Path, StringComparison.OrdinalIgnoreCase);

    private List<object> KeyValues(ModelDocument document, GroupByItem item)
    {
        if (item is TimeGroupBy t)
        {
            var values = Values(document, t.Field).Values;
            return values.Count == 0 ? [] : [Bucket((long)values[0], Resolve(t.Interval).GetString()!)];
        }

        var distinct = new List<object>();
        foreach (var value in Values(document, ((FieldGroupBy)item).Field).Values)
        {
            if (!distinct.Any(d => ModelValues.Compare(d, value) == 0))
            {
                distinct.Add(value);
            }
        }

        return distinct;
    }

    /// <summary>count() = documents; count(F) = documents with F; sum/avg/min/max over each document's first value.</summary>
    private object? AggregateValue(AggregateSelect aggregate, List<ModelDocument> documents)
    {
        if (aggregate.Field == null)
        {
            return (double)documents.Count;
        }

        if (aggregate.Function == AggregateFunction.Count)
        {
            return (double)documents.Count(d => Values(d, aggregate.Field).Exists);
        }

        var firsts = documents.Select(d => Values(d, aggregate.Field).Values).Where(v => v.Count > 0).Select(v => v[0]).ToList();
        return aggregate.Function switch
        {
            AggregateFunction.Sum => firsts.Sum(v => (double)v),
            AggregateFunction.Avg => firsts.Count == 0 ? null : firsts.Sum(v => (double)v) / firsts.Count,
            AggregateFunction.Min => firsts.Count == 0 ? null : firsts.Aggregate((m, v) => ModelValues.Compare(v, m) < 0 ? v : m),
            _ => firsts.Count == 0 ? null : firsts.Aggregate((m, v) => ModelValues.Compare(v, m) > 0 ? v : m),
        };
    }

    private static int CompareNullable(object? x, object? y)
    {
        if (x == null || y == null)
        {
            return x == null ? (y == null ? 0 : 1) : -1;
        }

        return ModelValues.Compare(x, y);
    }

    /// <summary>
    /// The start of the UTC bucket: fixed units as multiples since 1970-01-01, weeks since Monday 1969-12-29, months and
    /// years as calendar multiples since 1970-01.
    /// </summary>
    public static long Bucket(long ticks, string interval)
    {
        var unitStart = interval.TakeWhile(char.IsAsciiDigit).Count();
        var n = long.Parse(interval[..unitStart], CultureInfo.InvariantCulture);
        var unit = interval[unitStart..];
        var time = new DateTime(ticks, DateTimeKind.Utc);
        switch (unit)
        {
            case "M":
            {
                var months = ((time.Year - 1970) * 12) + time.Month - 1;
                var start = FloorDiv(months, n) * n;
                return new DateTime(1970, 1, 1, 0, 0, 0, DateTimeKind.Utc).AddMonths((int)start).Ticks;
            }

            case "y":
            {
                var start = FloorDiv(time.Year - 1970, n) * n;
                return new DateTime(1970 + (int)start, 1, 1, 0, 0, 0, DateTimeKind.Utc).Ticks;
            }
        }

        var length = n * unit switch
        {
            "ms" => TimeSpan.TicksPerMillisecond,
            "s" => TimeSpan.TicksPerSecond,
            "m" => TimeSpan.TicksPerMinute,
            "h" => TimeSpan.TicksPerHour,
            "d" => TimeSpan.TicksPerDay,
            "w" => 7 * TimeSpan.TicksPerDay,
            _ => throw new InvalidOperationException($"unit {unit}"),
        };
        var origin = unit == "w" ? new DateTime(1969, 12, 29, 0, 0, 0, DateTimeKind.Utc).Ticks : DateTime.UnixEpoch.Ticks;
        return origin + (FloorDiv(ticks - origin, length) * length);
    }

    private static long FloorDiv(long a, long b) => (a / b) - ((a % b != 0 && (a < 0) != (b < 0)) ? 1 : 0);

    private List<JsonObject> Facets(ParsedQuery query, List<ModelDocument> matches)
    {
        var rows = new List<JsonObject>();
        foreach (FacetSelect facet in query.Select)
        {
            if (facet.Ranges.Count == 0)
            {
                var counts = new List<(object Value, int Count)>();
                foreach (var document in matches)
                {
                    foreach (var value in KeyValues(document, new FieldGroupBy(facet.Field, default)))
                    {
                        var at = counts.FindIndex(c => ModelValues.Compare(c.Value, value) == 0);
                        if (at < 0)
                        {
                            counts.Add((value, 1));
                        }
                        else
                        {
                            counts[at] = (value, counts[at].Count + 1);
                        }
                    }
                }

                counts.Sort((a, b) => a.Count != b.Count ? b.Count.CompareTo(a.Count) : ModelValues.Compare(a.Value, b.Value));
                rows.AddRange(counts.Select(c => new JsonObject
                {
                    ["facet"] = facet.Name,
                    ["value"] = JsonValue(ModelValues.Output(c.Value)),
                    ["count"] = c.Count,
                }));
                continue;
            }

            var bounds = facet.Ranges.Select(r => Resolve(r).GetDouble()).ToList();
            for (var i = 0; i <= bounds.Count; i++)
            {
                double? low = i == 0 ? null : bounds[i - 1];
                double? high = i == bounds.Count ? null : bounds[i];
                var count = matches.Count(d => Values(d, facet.Field).Values.Any(v => (low == null || (double)v >= low) && (high == null || (double)v < high)));
                rows.Add(new JsonObject
                {
                    ["facet"] = facet.Name,
                    ["range"] = $"[{(low == null ? "-inf" : Number(low.Value))}, {(high == null ? "inf" : Number(high.Value))})",
                    ["count"] = count,
                });
            }
        }

        return rows;
    }

    private static string Number(double value) => value.ToString("R", CultureInfo.InvariantCulture);

    // ---- fields and values ----

    private ModelFieldValues Values(ModelDocument document, FieldRef field)
    {
        var definition = Definition(field);
        if (!_values.TryGetValue((document.EntryOrder, definition.Name), out var values))
        {
            values = ModelValues.Extract(document.Root, definition.Path, definition);
            _values[(document.EntryOrder, definition.Name)] = values;
        }

        return values;
    }

    private IndexFieldDefinition Definition(FieldRef field) =>
        _index.Fields.First(f => f.Name.Equals(field.Path, StringComparison.OrdinalIgnoreCase));

    private object Literal(QueryValue value, FieldRef field)
    {
        var json = Resolve(value);
        return field.IsDocumentId ? DocumentIdValue(json) : ModelValues.Literal(json, Definition(field));
    }

    private static object DocumentIdValue(JsonElement literal) => ModelValues.Keyword(literal.GetString()!, exactCase: false);

    private JsonElement Resolve(QueryValue value) => value switch
    {
        ParameterValue p => _parameters[p.Name],
        StringValue s => JsonSerializer.SerializeToElement(s.Value),
        NumberValue n => JsonDocument.Parse(n.Text).RootElement.Clone(),
        BoolValue b => JsonSerializer.SerializeToElement(b.Value),
        NullValue => JsonSerializer.SerializeToElement<object?>(null),
        _ => throw new InvalidOperationException(value.GetType().Name),
    };

    private static JsonNode? JsonValue(object? value) => value switch
    {
        null => null,
        string s => s,
        double d => d,
        bool b => b,
        _ => throw new InvalidOperationException(value.GetType().Name),
    };
}
