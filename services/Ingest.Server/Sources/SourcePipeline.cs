using Ingest.Contracts.Messages;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Sources;

/// <summary>
/// The broker-independent half of every source, in the order a message passes through it: map
/// (the one mapping step; what cannot become a document becomes a dead letter), count, hand to
/// the <see cref="BatchWriter"/>; then the status every source reports, and the last step of its
/// disposal. A broker's source adds the other half: its consume loop, flow control, position or
/// acknowledgement bookkeeping, and connection handling.
/// </summary>
internal sealed partial class SourcePipeline : IAsyncDisposable
{
    private readonly string _source;
    private readonly string _kind;
    private readonly MappingRules _rules;
    private readonly SourceScript? _script;
    private readonly ILogger _logger;
    private readonly bool _fromKafka;
    private long _consumed;

    public SourcePipeline(
        string source, string kind, MappingRules rules, SourceScript? script, DocumentStore store, BatchingOptions batching, ISourcePositions positions,
        IBatchAcknowledger acknowledger, ILoggerFactory loggers, TimeProvider time)
    {
        ArgumentNullException.ThrowIfNull(source);
        ArgumentNullException.ThrowIfNull(kind);
        ArgumentNullException.ThrowIfNull(rules);
        ArgumentNullException.ThrowIfNull(loggers);
        _source = source;
        _kind = kind;
        _rules = rules;
        _script = script;
        _fromKafka = kind == "kafka";
        _logger = loggers.CreateLogger<SourcePipeline>();
        Writer = new BatchWriter(
            source, store, batching, positions, acknowledger, loggers.CreateLogger<BatchWriter>(), time, statistics: null, script is null ? null : TransformAwaiting);
    }

    public BatchWriter Writer { get; }

    /// <summary>Messages received from the broker (redeliveries included).</summary>
    public long Consumed => Interlocked.Read(ref _consumed);

    /// <summary>
    /// Counts a received message and maps it; never throws for a message. With a transform, the
    /// message is only captured here: the script runs in the batch writer (<see cref="TransformAwaiting"/>),
    /// so a slow script no longer holds up the consume thread (it cost the Kafka source 63% of its
    /// rate there), and its failures still become dead letters in the batch that commits the message's position.
    /// </summary>
    /// <param name="pooledBody">The <see cref="PayloadPool"/> array behind <paramref name="ownedBody"/>, if the caller rented it: the item takes it over.</param>
    public IngestItem Map<THeaders>(
        in IncomingMessage message, in THeaders headers, ReadOnlyMemory<byte> ownedBody, in ItemPosition position, byte[]? pooledBody = null)
        where THeaders : IEnvelopeHeaders
    {
        Interlocked.Increment(ref _consumed);
        var item = _script is null
            ? IngestItemMapper.Map(message, _rules, headers, ownedBody, position, pooledBody)
            : IngestItemMapper.Defer(message, headers, ownedBody, position, pooledBody);
        if (item.Kind == IngestItemKind.DeadLetter)
        {
            LogDeadLetter(_logger, _source, message.Destination, position.Partition, position.Offset, item.DeadLetterReason!);
        }

        return Telemetry.IngestTracing.WithProducer(item, message.Headers);
    }

    /// <summary>The batch writer's half of a transform: runs the script for a message <see cref="Map"/> captured.</summary>
    private IngestItem TransformAwaiting(IngestItem item)
    {
        var transformed = IngestItemMapper.TransformAwaiting(item, _script!, _source, _fromKafka, _rules);
        if (transformed.Kind == IngestItemKind.DeadLetter)
        {
            LogDeadLetter(_logger, _source, item.Message!.Destination, item.Position.Partition, item.Position.Offset, transformed.DeadLetterReason!);
        }

        return transformed;
    }

    /// <summary>
    /// Hands an item to the writer; waits while the store is behind. If the item is not taken
    /// (cancelled, or the writer has stopped) its pooled buffer is returned and the exception
    /// propagates: the caller must see to it that the broker delivers the message again.
    /// </summary>
    public ValueTask AddAsync(IngestItem item, CancellationToken cancellationToken)
    {
        ValueTask pending;
        try
        {
            pending = Writer.AddAsync(item, cancellationToken);
        }
        catch
        {
            item.ReturnRented();
            throw;
        }

        return pending.IsCompletedSuccessfully ? pending : AddAfterWaitAsync(pending, item);
    }

    /// <summary>The status with the pipeline's figures; <paramref name="error"/> wins over the writer's.</summary>
    public SourceStatus Status(string name, bool connected, string? error, bool paused, IReadOnlyList<PartitionStatus> partitions) =>
        new(name, _kind, connected, error ?? Writer.LastError, Consumed, Writer.Written, Writer.DeadLetters, paused, partitions, Writer.Statistics);

    /// <summary>The last step of a source's disposal, after its broker side is closed: gives up on what is not durable.</summary>
    public ValueTask DisposeAsync() => Writer.DisposeAsync();

    private static async ValueTask AddAfterWaitAsync(ValueTask pending, IngestItem item)
    {
        try
        {
            await pending.ConfigureAwait(false);
        }
        catch
        {
            item.ReturnRented();
            throw;
        }
    }

    [LoggerMessage(Level = LogLevel.Debug, Message = "Source '{Source}': {Destination}[{Partition}]@{Offset} is a dead letter: {Reason}")]
    private static partial void LogDeadLetter(ILogger logger, string source, string destination, int partition, long offset, string reason);
}
