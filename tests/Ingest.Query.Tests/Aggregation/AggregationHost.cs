using System.Buffers;
using System.Text.Json;
using System.Text.Json.Nodes;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.Aggregation;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;

namespace Ingest.Query.Tests.Aggregation;

/// <summary>
/// A <see cref="QueryHost"/> (real document store and query engine) with one index over "Orders"; runs aggregation
/// queries over the entries of chosen documents (the where clause is the executor's, tested there).
/// </summary>
internal sealed class AggregationHost : IAsyncDisposable
{
    public static readonly IndexDefinition Orders = new(
        "Orders/ForAggregation",
        ["Orders"],
        [
            new IndexFieldDefinition("Status", "Status", IndexFieldType.Keyword),
            new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
            new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
            new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            new IndexFieldDefinition("Tags", "Tags[]", IndexFieldType.Keyword),
            new IndexFieldDefinition("Scores", "Scores[]", IndexFieldType.Number),
            new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
        ]);

    private readonly QueryHost _host;
    private readonly List<string> _ids = [];

    private AggregationHost(QueryHost host)
    {
        _host = host;
    }

    public IndexSet Indexes => _host.Indexes;

    /// <summary>Ids of the documents written, in order.</summary>
    public IReadOnlyList<string> Ids => _ids;

    public static async Task<AggregationHost> OpenAsync() => new(await QueryHost.OpenAsync(Orders));

    /// <summary>Writes the documents (ids orders/0, orders/1, ...) and waits until the index has them.</summary>
    public async Task WriteAsync(params string[] documents)
    {
        var first = _ids.Count;
        for (var i = 0; i < documents.Length; i++)
        {
            _ids.Add($"orders/{first + i}");
        }

        await _host.PutAsync("Orders", documents.Select((json, i) => (_ids[first + i], json)));
        await _host.CatchUpAsync(Orders.Name);
    }

    /// <summary>Replaces documents (by index into <see cref="Ids"/>) and deletes others in one batch, and waits until the index has it.</summary>
    public async Task ChangeAsync(IEnumerable<(int Document, string Json)> puts, IEnumerable<int> deletes)
    {
        var batch = new Ingest.Documents.WriteBatch();
        foreach (var (document, json) in puts)
        {
            batch.Put(_ids[document], "Orders", json);
        }

        foreach (var document in deletes)
        {
            batch.Delete(_ids[document]);
        }

        await _host.Store.WriteAsync(batch);
        await _host.CatchUpAsync(Orders.Name);
    }

    /// <summary>Runs a whole query (its where clause by the executor) as the engine does; the rows as one JSON array.</summary>
    public async Task<JsonArray> QueryAsync(string text, object? parameters = null)
    {
        var page = await _host.QueryAsync(text, parameters);
        return JsonNode.Parse("[" + string.Join(",", page.Rows.Select(r => r.GetRawText())) + "]")!.AsArray();
    }

    /// <summary>Runs the aggregation of <paramref name="query"/> over every document, or over those listed (indexes into <see cref="Ids"/>).</summary>
    public JsonArray Run(string query, IReadOnlyCollection<int>? documents = null, string parameters = "{}")
    {
        var aggregation = Bind(query, parameters);
        using var reader = Indexes.BeginRead(Orders.Name)!;
        var matches = new List<long>();
        for (var i = 0; i < _ids.Count; i++)
        {
            if ((documents == null || documents.Contains(i)) && reader.TryGetEntry(_ids[i], out var entry))
            {
                matches.Add(entry);
            }
        }

        matches.Sort();
        var buffer = new ArrayBufferWriter<byte>();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            var total = aggregation.Write(reader, matches.ToArray(), writer, CancellationToken.None);
            writer.WriteEndArray();
            Assert.True(total >= 0);
        }

        return JsonNode.Parse(buffer.WrittenSpan)!.AsArray();
    }

    public static AggregationQuery Bind(string query, string parameters = "{}")
    {
        var values = JsonDocument.Parse(parameters).RootElement;
        return AggregationQuery.TryBind(
            QueryParser.Parse(query),
            Orders,
            p => values.TryGetProperty(p.Name, out var v) ? v.Clone() : throw new QueryException(p.Position, $"missing parameter '${p.Name}'"))
            ?? throw new InvalidOperationException("not an aggregation");
    }

    public ValueTask DisposeAsync() => _host.DisposeAsync();
}
