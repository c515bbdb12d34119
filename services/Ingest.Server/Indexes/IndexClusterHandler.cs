using System.Collections.Concurrent;
using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query;
using Ingest.Server.Cluster;

namespace Ingest.Server.Indexes;

/// <summary>
/// Applies <c>index</c> cluster records on every node with the calls <c>PUT</c> and <c>DELETE /indexes/{name}</c> make in
/// single mode (both idempotent: the same definition twice is unchanged, a second delete finds nothing). The key is
/// the index name; header <see cref="Operation"/> says <c>put</c> (body: the definition JSON), <c>delete</c> or <c>reset</c>
/// (<c>POST /indexes/{name}/reset</c>: a rebuild, which applied twice only rebuilds twice). A put's outcome is kept for
/// the request on this node that produced it.
/// </summary>
internal sealed class IndexClusterHandler(QueryEngine engine, ClusterOptions options) : IClusterRecordHandler
{
    public const string RecordKind = "index";
    public const string Operation = "ingest-index-op";

    private readonly ConcurrentDictionary<ClusterPosition, IndexPutOutcome> _outcomes = new();

    public string Kind => RecordKind;

    public async Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        var operation = HeaderOf(record, Operation);
        if (operation == "delete")
        {
            await engine.Indexes.DeleteAsync(record.Key, cancellationToken).ConfigureAwait(false);
            return;
        }

        if (operation == "reset")
        {
            // False when this node has no such index (deleted by a later record applied meanwhile): nothing to rebuild.
            await engine.Indexes.ResetAsync(record.Key, cancellationToken).ConfigureAwait(false);
            return;
        }

        var parsed = IndexDefinitionJson.Parse(record.Body.Span, record.Key);
        if (parsed.Definition is not { } definition)
        {
            throw new InvalidOperationException($"The definition of index '{record.Key}' is invalid: {string.Join("; ", parsed.Errors)}");
        }

        var outcome = await engine.Indexes.PutAsync(definition, cancellationToken).ConfigureAwait(false);
        if (HeaderOf(record, ClusterHeaders.Node) == options.Node && _outcomes.Count < 10_000)
        {
            _outcomes[position] = outcome;
        }
    }

    /// <summary>The outcome of this node's put at <paramref name="position"/>, once applied.</summary>
    public IndexPutOutcome? TakeOutcome(ClusterPosition position) => _outcomes.TryRemove(position, out var outcome) ? outcome : null;

    private static string? HeaderOf(ClusterRecord record, string name)
    {
        for (var i = record.Headers.Count - 1; i >= 0; i--)
        {
            if (record.Headers[i].Key == name)
            {
                return Encoding.UTF8.GetString(record.Headers[i].Value);
            }
        }

        return null;
    }
}
