using System.Buffers;
using System.Globalization;
using System.Text.Json;
using Ingest.Server.Cluster;

namespace Ingest.Server.Sources;

/// <summary>
/// Applies <c>source-reset</c> cluster records: <c>POST /sources/{name}/reset</c> made on one node, applied on every node
/// to its own positions of the source (each node consumes with its own group and keeps its own positions) by the call
/// single mode makes (<see cref="IngestSource.ResetAsync"/>). The key is the source's name; the body is
/// <c>{"to": {"topic": {"partition": offset}}}</c>, always explicit offsets: "earliest", "latest" and a time were
/// resolved on the node that took the request, so every node goes to the same offsets whenever it applies the record.
/// Applied twice, a reset moves to the same offsets twice (what was consumed in between is consumed again, and
/// writes the same documents). A node that cannot reset (its source is not running) logs why and passes on; the
/// receiving node answers with its own outcome, as single mode does.
/// </summary>
internal sealed class SourceResetClusterHandler(IngestionService ingestion, ClusterOptions options) : IClusterRecordHandler
{
    public const string RecordKind = "source-reset";

    public string Kind => RecordKind;

    /// <summary>What the reset did on this node, for the answer to this node's own requests.</summary>
    public ClusterHandlerOutcomes<(IReadOnlyList<PartitionReset>? Moved, SourceResetException? Failure)> Outcomes { get; } = new(options);

    public async Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        if (!SourceResetTarget.TryParse(record.Body.Span, out var target, out var error))
        {
            throw new InvalidOperationException($"The reset of source '{record.Key}' at {position} has no target this node can read: {error}");
        }

        var source = ingestion.Find(record.Key)
            ?? throw new InvalidOperationException($"This node has no source '{record.Key}' to reset (check that every node has the same Ingest:Sources).");
        try
        {
            var moved = await source.ResetAsync(target!, cancellationToken).ConfigureAwait(false);
            Outcomes.Keep(record, position, (moved, null));
        }
        catch (SourceResetException ex)
        {
            Outcomes.Keep(record, position, (null, ex));
            throw;
        }
    }

    /// <summary>An offsets target as the record's body: <c>{"to": {"topic": {"partition": offset}}}</c>.</summary>
    public static byte[] Encode(SourceResetTarget target)
    {
        ArgumentNullException.ThrowIfNull(target);
        var buffer = new ArrayBufferWriter<byte>();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            json.WriteStartObject("to");
            foreach (var (topic, partitions) in target.Offsets)
            {
                json.WriteStartObject(topic);
                foreach (var (partition, offset) in partitions)
                {
                    json.WriteNumber(partition.ToString(CultureInfo.InvariantCulture), offset);
                }

                json.WriteEndObject();
            }

            json.WriteEndObject();
            json.WriteEndObject();
        }

        return buffer.WrittenSpan.ToArray();
    }
}
