using System.Globalization;
using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Reduce;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Model;

/// <summary>
/// The model the map-reduce tests check against: a group-by of the live documents computed from scratch (the real
/// extractor gives each document's values; every group and aggregate is then recomputed over the group's documents),
/// and random orders whose few statuses, customers and hours make groups fill, empty out and come back.
/// </summary>
internal static class BruteForceGroups
{
    private static readonly string[] Statuses = ["shipped", "Pending", "cancelled"];
    private static readonly string[] Customers = ["Acme", "Globex", "Initech", "Umbrella", "Hooli"];
    private static readonly string[] Tags = ["red", "blue", "green"];

    private static readonly IndexFieldDefinition[] Fields =
    [
        new("Status", "Status", IndexFieldType.Keyword),
        new("Customer", "Customer.Name", IndexFieldType.Keyword),
        new("Total", "Total", IndexFieldType.Number),
        new("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
        new("Paid", "Paid", IndexFieldType.Bool),
        new("Tags", "Tags[]", IndexFieldType.Keyword),
        new("Prices", "Lines[].Price", IndexFieldType.Number),
    ];

    /// <summary>Three shapes: per status and hour with every aggregate; per tag and paid (documents in several groups); one group of everything.</summary>
    public static IndexDefinition Definition(int shape) => new IndexDefinition("Orders/Model", ["Orders"], Fields)
    {
        Reduce = shape switch
        {
            0 => new ReduceDefinition(
                [new GroupKeyDefinition("Status", "Status"), new GroupKeyDefinition("Hour", "OrderedAt", "1h")],
                [
                    new AggregateDefinition("Orders", AggregateKind.Count),
                    new AggregateDefinition("WithTotal", AggregateKind.Count, "Total"),
                    new AggregateDefinition("Revenue", AggregateKind.Sum, "Total"),
                    new AggregateDefinition("Average", AggregateKind.Avg, "Total"),
                    new AggregateDefinition("Smallest", AggregateKind.Min, "Total"),
                    new AggregateDefinition("Largest", AggregateKind.Max, "Total"),
                    new AggregateDefinition("First", AggregateKind.Min, "OrderedAt"),
                    new AggregateDefinition("Last", AggregateKind.Max, "OrderedAt"),
                    new AggregateDefinition("Customers", AggregateKind.CountDistinct, "Customer"),
                    new AggregateDefinition("Totals", AggregateKind.CountDistinct, "Total"),
                ]),
            1 => new ReduceDefinition(
                [new GroupKeyDefinition("Tags", "Tags"), new GroupKeyDefinition("Paid", "Paid"), new GroupKeyDefinition("Price", "Prices")],
                [
                    new AggregateDefinition("Orders", AggregateKind.Count),
                    new AggregateDefinition("Revenue", AggregateKind.Sum, "Total"),
                    new AggregateDefinition("Largest", AggregateKind.Max, "Total"),
                    new AggregateDefinition("Smallest", AggregateKind.Min, "Total"),
                    new AggregateDefinition("Statuses", AggregateKind.CountDistinct, "Status"),
                    new AggregateDefinition("Last", AggregateKind.Max, "OrderedAt"),
                ]),
            _ => new ReduceDefinition(
                [],
                [
                    new AggregateDefinition("Orders", AggregateKind.Count),
                    new AggregateDefinition("Revenue", AggregateKind.Sum, "Total"),
                    new AggregateDefinition("Smallest", AggregateKind.Min, "Total"),
                    new AggregateDefinition("Tags", AggregateKind.CountDistinct, "Tags"),
                ]),
        },
    };

    public static byte[] RandomDocument(Random random)
    {
        var parts = new List<string>();
        switch (random.Next(10))
        {
            case 0: break;
            case 1: parts.Add("\"Status\":null"); break;
            case 2: parts.Add("\"Status\":7"); break;
            default: parts.Add($"\"Status\":\"{Statuses[random.Next(Statuses.Length)]}\""); break;
        }

        if (random.Next(8) != 0)
        {
            parts.Add($"\"Customer\":{{\"Name\":\"{Customers[random.Next(Customers.Length)]}\"}}");
        }

        switch (random.Next(8))
        {
            case 0: break;
            case 1: parts.Add("\"Total\":\"lots\""); break;
            default: parts.Add("\"Total\":" + (random.Next(-8, 400) / 4.0).ToString(CultureInfo.InvariantCulture)); break;
        }

        if (random.Next(8) != 0)
        {
            var at = new DateTime(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc).AddMinutes(random.Next(0, 6 * 60));
            parts.Add($"\"OrderedAt\":\"{at:yyyy-MM-ddTHH:mm:ssZ}\"");
        }

        if (random.Next(3) != 0)
        {
            parts.Add(random.Next(2) == 0 ? "\"Paid\":true" : "\"Paid\":false");
        }

        var tags = Enumerable.Range(0, random.Next(3)).Select(_ => $"\"{Tags[random.Next(Tags.Length)]}\"");
        parts.Add($"\"Tags\":[{string.Join(',', tags)}]");
        var prices = Enumerable.Range(0, random.Next(3)).Select(_ => $"{{\"Price\":{random.Next(3)}}}");
        parts.Add($"\"Lines\":[{string.Join(',', prices)}]");
        return Encoding.UTF8.GetBytes("{" + string.Join(',', parts) + "}");
    }

    /// <summary>Every group of the documents, by <see cref="Format"/>ted keys, with each aggregate <see cref="Format"/>ted.</summary>
    public static SortedDictionary<string, string> Expected(IndexDefinition definition, IReadOnlyDictionary<string, byte[]> documents)
    {
        var reduce = definition.Reduce!;
        var fields = definition.Fields;
        var extractor = new DocumentExtractor([.. fields.Select(CompiledIndexField.Compile)]);
        using var terms = new TermBuffer();
        var tallies = new FieldTally[fields.Count];
        var groups = new Dictionary<string, (object?[] Keys, List<List<byte[]>[]> Documents)>();
        foreach (var json in documents.Values)
        {
            terms.Clear();
            extractor.Extract(json, terms, tallies);
            var values = new List<byte[]>[fields.Count];
            for (var f = 0; f < fields.Count; f++)
            {
                values[f] = [];
            }

            for (var t = 0; t < terms.Count; t++)
            {
                values[terms.FieldOf(t)].Add(terms[t].ToArray());
            }

            // Keyword and bool keys: each distinct value; number and datetime: the first value; null without one.
            var choices = new List<object?[]> { Array.Empty<object?>() };
            foreach (var key in reduce.GroupBy)
            {
                var f = Ordinal(fields, key.Field);
                var type = fields[f].Type;
                var options = new List<object?>();
                if (values[f].Count == 0)
                {
                    options.Add(null);
                }
                else if (type is IndexFieldType.Number or IndexFieldType.DateTime)
                {
                    options.Add(Decode(type, values[f][0], key.Interval));
                }
                else
                {
                    options.AddRange(values[f].Select(v => Convert.ToHexString(v)).Distinct().Select(h => Decode(type, Convert.FromHexString(h), null)));
                }

                choices = [.. choices.SelectMany(c => options.Select(o => c.Append(o).ToArray()))];
            }

            foreach (var keys in choices)
            {
                var name = string.Join(" | ", keys.Select(Format));
                if (!groups.TryGetValue(name, out var group))
                {
                    groups[name] = group = (keys, []);
                }

                group.Documents.Add(values);
            }
        }

        var result = new SortedDictionary<string, string>(StringComparer.Ordinal);
        foreach (var (name, group) in groups)
        {
            var row = new List<string> { $"docs={group.Documents.Count}" };
            foreach (var aggregate in reduce.Aggregates)
            {
                row.Add($"{aggregate.Name}={Format(Compute(aggregate, fields, group.Documents))}");
            }

            result[name] = string.Join(", ", row);
        }

        return result;
    }

    /// <summary>The index's groups in the same form as <see cref="Expected"/>.</summary>
    public static SortedDictionary<string, string> Actual(IndexReader reader)
    {
        var cursor = reader.ReadGroups()!;
        var reduce = cursor.Definition;
        var result = new SortedDictionary<string, string>(StringComparer.Ordinal);
        while (cursor.MoveNext())
        {
            var name = string.Join(" | ", Enumerable.Range(0, reduce.GroupBy.Count).Select(k => Format(cursor.GetKey(k))));
            var row = new List<string> { $"docs={cursor.DocumentCount}" };
            for (var a = 0; a < reduce.Aggregates.Count; a++)
            {
                row.Add($"{reduce.Aggregates[a].Name}={Format(cursor.GetAggregate(a))}");
            }

            Assert.True(result.TryAdd(name, string.Join(", ", row)), $"group {name} listed twice");
        }

        return result;
    }

    public static string Format(object? value) => value switch
    {
        null => "null",
        string s => "'" + s + "'",
        double d => d.ToString("R", CultureInfo.InvariantCulture),
        long l => l.ToString(CultureInfo.InvariantCulture),
        DateTime t => t.ToString("O", CultureInfo.InvariantCulture),
        bool b => b ? "true" : "false",
        _ => throw new ArgumentException($"unexpected {value.GetType()}", nameof(value)),
    };

    private static object? Compute(AggregateDefinition aggregate, IReadOnlyList<IndexFieldDefinition> fields, List<List<byte[]>[]> documents)
    {
        if (aggregate.Field == null)
        {
            return (long)documents.Count;
        }

        var f = Ordinal(fields, aggregate.Field);
        var type = fields[f].Type;
        var column = type is IndexFieldType.Number or IndexFieldType.DateTime;
        var withValue = documents.Where(d => d[f].Count > 0).ToList();
        switch (aggregate.Kind)
        {
            case AggregateKind.Count:
                return (long)withValue.Count;
            case AggregateKind.CountDistinct:
                return (long)(column
                    ? withValue.Select(d => Convert.ToHexString(d[f][0])).Distinct().Count()
                    : withValue.SelectMany(d => d[f].Select(Convert.ToHexString)).Distinct().Count());
            default:
                break;
        }

        if (withValue.Count == 0)
        {
            return null;
        }

        var firsts = withValue.Select(d => d[f][0]).ToList();
        if (aggregate.Kind is AggregateKind.Sum or AggregateKind.Avg)
        {
            var sum = firsts.Sum(v => NumberTerm.Read(v));
            return aggregate.Kind == AggregateKind.Sum ? sum : sum / firsts.Count;
        }

        var ordered = firsts.OrderBy(v => Convert.ToHexString(v), StringComparer.Ordinal).ToList();
        return Decode(type, aggregate.Kind == AggregateKind.Min ? ordered[0] : ordered[^1], null);
    }

    private static object? Decode(IndexFieldType type, byte[] term, string? interval)
    {
        switch (type)
        {
            case IndexFieldType.Number:
                return NumberTerm.Read(term);
            case IndexFieldType.DateTime:
                var ticks = DateTimeTerm.Read(term);
                if (interval != null)
                {
                    Assert.Equal("1h", interval);
                    ticks -= (ticks - DateTime.UnixEpoch.Ticks) % TimeSpan.TicksPerHour;
                }

                return new DateTime(ticks, DateTimeKind.Utc);
            case IndexFieldType.Bool:
                return term[0] != 0;
            default:
                return Encoding.UTF8.GetString(term);
        }
    }

    private static int Ordinal(IReadOnlyList<IndexFieldDefinition> fields, string name) =>
        fields.Select((f, i) => (f, i)).First(p => string.Equals(p.f.Name, name, StringComparison.OrdinalIgnoreCase)).i;
}
