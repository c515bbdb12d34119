using System.Text.Json;
using Ingest.Server.Cluster;

namespace Ingest.Server.Etl;

/// <summary>
/// Applies <c>etl-task</c> cluster records: an ETL task defined or deleted over HTTP on one node, applied on every node
/// with the calls <c>PUT</c> and <c>DELETE /etl/{name}</c> make in single mode (<see cref="EtlService.PutAsync"/>,
/// <see cref="EtlService.DeleteAsync"/>): both idempotent (the same definition again replaces it with itself, a second
/// delete finds nothing). The key is the task's name; header <see cref="Operation"/> says <c>put</c> (body: the
/// definition JSON as the client sent it; its secrets are <c>secret:NAME</c> references, which the receiving node
/// checked, so no password travels through Kafka) or <c>delete</c>. Which node runs the task is decided elsewhere.
/// </summary>
internal sealed class EtlTaskClusterHandler(EtlService etl, ClusterOptions options) : IClusterRecordHandler
{
    public const string RecordKind = "etl-task";
    public const string Operation = "ingest-etl-task-op";

    public string Kind => RecordKind;

    /// <summary>Whether this node's own put created the task (201) or replaced it (200).</summary>
    public ClusterHandlerOutcomes<bool> Created { get; } = new(options);

    public async Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        if (ClusterRecordHeaders.Text(record, Operation) == "delete")
        {
            // Not found (deleted already) and defined in configuration here are both "nothing to delete" on this node.
            await etl.DeleteAsync(record.Key).ConfigureAwait(false);
            return;
        }

        var definition = JsonSerializer.Deserialize(record.Body.Span, EtlJsonContext.Default.EtlTaskDefinition)
            ?? throw new InvalidOperationException($"The ETL task record for '{record.Key}' at {position} holds no definition.");
        definition.Name = record.Key;
        var (errors, created) = await etl.PutAsync(definition).ConfigureAwait(false);
        if (errors.Count > 0)
        {
            throw new InvalidOperationException(string.Join(" ", errors));
        }

        Created.Keep(record, position, created);
    }
}
