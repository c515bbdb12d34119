using System.Text.Json;
using Ingest.Server.Cluster;

namespace Ingest.Server.Grafana;

/// <summary>
/// Applies <c>grafana-query</c> cluster records: a saved query stored or deleted on one node, applied on every node
/// with the calls <c>PUT</c> and <c>DELETE /grafana/queries/{name}</c> make in single mode (<see cref="SavedQueryStore.Put"/>,
/// <see cref="SavedQueryStore.Delete"/>; both idempotent). The key is the name; header <see cref="Operation"/> says
/// <c>put</c> (body: the saved query as <c>GET /grafana/queries/{name}</c> shows it) or <c>delete</c>.
/// </summary>
internal sealed class SavedQueryClusterHandler(SavedQueryStore store, ClusterOptions options) : IClusterRecordHandler
{
    public const string RecordKind = "grafana-query";
    public const string Operation = "ingest-grafana-query-op";

    public string Kind => RecordKind;

    /// <summary>Whether this node's own put replaced a query (200) or added one (201).</summary>
    public ClusterHandlerOutcomes<bool> Replaced { get; } = new(options);

    public Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        if (ClusterRecordHeaders.Text(record, Operation) == "delete")
        {
            store.Delete(record.Key);
            return Task.CompletedTask;
        }

        var query = JsonSerializer.Deserialize(record.Body.Span, GrafanaJsonContext.Default.SavedQuery)
            ?? throw new InvalidOperationException($"The saved query record for '{record.Key}' at {position} holds no query.");
        Replaced.Keep(record, position, store.Put(query with { Name = record.Key }));
        return Task.CompletedTask;
    }
}
