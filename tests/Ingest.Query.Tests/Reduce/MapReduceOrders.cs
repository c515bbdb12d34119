using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Reduce;
using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;

namespace Ingest.Query.Tests.Reduce;

/// <summary>
/// The orders the map-reduce tests index (<see cref="MapReduceCoverageTests"/>, <see cref="MapReduceCombiningTests"/>):
/// one field definition shared by the plain map index that query-time aggregation reads and by every map-reduce index
/// under test, the rounds of puts, updates and deletes, and the two answers each test compares byte for byte.
/// </summary>
internal static class MapReduceOrders
{
    /// <summary>A keyword, a bool, a multi-valued keyword, a number and a datetime: every kind of key and aggregate.</summary>
    public static readonly IndexFieldDefinition[] Fields =
    [
        new("Status", "Status", IndexFieldType.Keyword),
        new("Paid", "Paid", IndexFieldType.Bool),
        new("Tags", "Tags[]", IndexFieldType.Keyword),
        new("Total", "Total", IndexFieldType.Number),
        new("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
    ];

    /// <summary>The map index of the same fields: what query-time aggregation reads for the expected answer.</summary>
    public static readonly IndexDefinition Plain = new("Orders/Plain", ["Orders"], Fields);

    /// <summary>A map-reduce index of the orders over <see cref="Fields"/>.</summary>
    public static IndexDefinition MapReduce(string name, AggregateDefinition[] aggregates, params GroupKeyDefinition[] keys) =>
        new(name, ["Orders"], Fields) { Reduce = new ReduceDefinition(keys, aggregates) };

    /// <summary>
    /// Round 0 writes <paramref name="count"/> orders; later rounds update a third, delete a sixth and bring some back
    /// (groups empty out and come back); then every index catches up.
    /// </summary>
    public static async Task ChangeAsync(QueryHost host, IReadOnlyList<IndexDefinition> reduced, Random random, int round, int count, Func<Random, int, string> order)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < count; i++)
        {
            if (round > 0 && random.Next(6) == 0)
            {
                batch.Delete($"orders/{i}");
            }
            else if (round == 0 || random.Next(3) == 0)
            {
                batch.Put($"orders/{i}", "Orders", order(random, round));
            }
        }

        await host.Store.WriteAsync(batch);
        await host.CatchUpAsync(Plain.Name);
        foreach (var index in reduced)
        {
            await host.CatchUpAsync(index.Name);
        }
    }

    /// <summary>The expected answer: query-time aggregation of <paramref name="text"/> over <see cref="Plain"/>.</summary>
    public static async Task<string> QueryTimeAsync(QueryHost host, string text, IReadOnlyDictionary<string, JsonElement> parameters)
    {
        var prepared = host.Executor.Prepare(QueryParser.Parse(text), Plain, new QueryParameters(parameters), null);
        using var reader = host.Indexes.BeginRead(Plain.Name);
        using var results = host.Executor.Run(prepared, reader, CancellationToken.None);
        return await WriteAsync(results);
    }

    /// <summary>The results array as the server writes it.</summary>
    public static async Task<string> WriteAsync(QueryResults results)
    {
        var buffer = new MemoryStream();
        await using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            await results.WriteResultsAsync(writer, async ct => await writer.FlushAsync(ct), CancellationToken.None);
            writer.WriteEndArray();
        }

        return System.Text.Encoding.UTF8.GetString(buffer.ToArray());
    }
}
