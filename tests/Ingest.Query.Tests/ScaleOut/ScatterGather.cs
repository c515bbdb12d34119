using System.Text.Json.Nodes;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// The simulation's coordinator: sends a query to every shard (each a real store and query engine holding some of the
/// Kafka partitions) and merges the answers into what one node holding everything would answer. Documents are merged
/// k-way by their order keys, aggregates from their parts (avg as sum and count), groups and facet counts by key.
/// </summary>
internal sealed class ScatterGather
{
    private readonly IReadOnlyList<QueryHost> _shards;

    public ScatterGather(IReadOnlyList<QueryHost> shards)
    {
        _shards = shards;
    }

    /// <summary>Shard queries sent so far (each a round trip in a real cluster).</summary>
    public int ShardQueries { get; private set; }

    /// <summary>Of those, the ones asked only for the token after part of a shard's page.</summary>
    public int TokenQueries { get; private set; }

    public Task<MergedPage> QueryAsync(ParsedQuery query, string? continuation = null) =>
        query.Select.Any(s => s is FacetSelect) ? FacetsAsync(query)
        : query.GroupBy.Count > 0 || query.Select.Any(s => s is AggregateSelect) ? GroupsAsync(query)
        : DocumentsAsync(query, continuation);

    /// <summary>
    /// Each shard gives its first offset + limit rows in the query's order (from where its previous page ended); the
    /// merge takes offset + limit of them in order and skips the offset. A shard's place for the next page is the
    /// engine's token after the last row taken from it: its own token when all its rows were taken, else one more
    /// shard query for exactly the rows taken (the engine makes tokens per page, not per row).
    /// </summary>
    private async Task<MergedPage> DocumentsAsync(ParsedQuery query, string? continuation)
    {
        var order = new DocumentOrder(query);
        var state = continuation == null ? ShardContinuation.Start(_shards.Count) : ShardContinuation.Decode(continuation, _shards.Count);
        long? limit = query.Limit is NumberValue l ? (long)l.Value : null;
        var offset = continuation == null && query.Offset is NumberValue o ? (long)o.Value : 0;
        long? take = limit is { } n ? offset + n : null;
        var text = QueryFormatter.Format(order.ShardQuery(take));
        var pages = new QueryHost.Page?[_shards.Count];
        var rows = new List<(JsonObject Row, SortValue[] Keys)>[_shards.Count];
        long total = 0;
        for (var s = 0; s < _shards.Count; s++)
        {
            rows[s] = [];
            if (state.Done[s])
            {
                continue;
            }

            pages[s] = await _shards[s].QueryAsync(text, continuation: state.Tokens[s]);
            ShardQueries++;
            total += pages[s]!.Total;
            foreach (var element in pages[s]!.Rows)
            {
                var row = JsonNode.Parse(element.GetRawText())!.AsObject();
                rows[s].Add((row, order.Keys(row)));
            }
        }

        // k-way merge; equal keys go to the lower shard, so a shard's rows stay in its own order.
        var taken = new int[_shards.Count];
        var merged = new List<JsonObject>();
        while (take == null || merged.Count < take)
        {
            var best = -1;
            for (var s = 0; s < _shards.Count; s++)
            {
                if (taken[s] < rows[s].Count && (best < 0 || order.Compare(rows[s][taken[s]].Keys, rows[best][taken[best]].Keys) < 0))
                {
                    best = s;
                }
            }

            if (best < 0)
            {
                break;
            }

            merged.Add(rows[best][taken[best]++].Row);
        }

        var visible = merged.Skip((int)offset).Select(order.Visible).ToList();
        var ids = merged.Skip((int)offset).Select(DocumentOrder.Id).ToList();
        if (take == null)
        {
            return new MergedPage(visible, total, null, ids);
        }

        var next = new ShardContinuation((string?[])state.Tokens.Clone(), (bool[])state.Done.Clone());
        for (var s = 0; s < _shards.Count; s++)
        {
            if (state.Done[s] || (taken[s] == 0 && rows[s].Count > 0))
            {
                continue;
            }

            var token = pages[s]!.Continuation;
            if (taken[s] < rows[s].Count)
            {
                var exact = await _shards[s].QueryAsync(QueryFormatter.Format(order.ShardQuery(taken[s])), continuation: state.Tokens[s]);
                ShardQueries++;
                TokenQueries++;
                token = exact.Continuation;
            }

            next.Tokens[s] = token;
            next.Done[s] = token == null;
        }

        return new MergedPage(visible, total, next.AllDone ? null : next.Encode(), ids);
    }

    private async Task<MergedPage> GroupsAsync(ParsedQuery query)
    {
        var merge = new GroupMerge(query);
        var text = QueryFormatter.Format(merge.ShardQuery());
        foreach (var shard in _shards)
        {
            var page = await shard.QueryAsync(text);
            ShardQueries++;
            foreach (var row in page.Rows)
            {
                merge.Add(JsonNode.Parse(row.GetRawText())!.AsObject());
            }
        }

        return merge.Result();
    }

    private async Task<MergedPage> FacetsAsync(ParsedQuery query)
    {
        var merge = new FacetMerge(query);
        var text = QueryFormatter.Format(query);
        foreach (var shard in _shards)
        {
            var page = await shard.QueryAsync(text);
            ShardQueries++;
            foreach (var row in page.Rows)
            {
                merge.Add(JsonNode.Parse(row.GetRawText())!.AsObject());
            }
        }

        return merge.Result();
    }
}
