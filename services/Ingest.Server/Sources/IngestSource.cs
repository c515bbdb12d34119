using Ingest.Server.Batching;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Sources;

/// <summary>
/// A configured source: consumes from a broker, maps each message, and feeds its
/// <see cref="BatchWriter"/>; acknowledges to the broker only what the writer made durable.
/// </summary>
public abstract class IngestSource : IAsyncDisposable
{
    protected IngestSource(string name, string kind, MappingRules rules)
    {
        ArgumentNullException.ThrowIfNull(name);
        ArgumentNullException.ThrowIfNull(kind);
        ArgumentNullException.ThrowIfNull(rules);
        Name = name;
        Kind = kind;
        Rules = rules;
    }

    /// <summary>The configured (or default) name, unique among sources.</summary>
    public string Name { get; }

    /// <summary>"kafka" or "rabbitmq".</summary>
    public string Kind { get; }

    /// <summary>How this source's messages become documents; also used to replay its dead letters.</summary>
    public MappingRules Rules { get; }

    /// <summary>The source's transform, if it has one: it replaces the header-driven mapping, for consumed and replayed messages.</summary>
    internal SourceScript? Script { get; init; }

    /// <summary>Begins consuming. Returns once consuming has started; connection problems show in <see cref="GetStatus"/> and are retried.</summary>
    public abstract Task StartAsync(CancellationToken cancellationToken);

    /// <summary>
    /// Graceful stop: consume no more, write and acknowledge what was consumed, close the
    /// connection. If <paramref name="cancellationToken"/> fires first, unwritten work is left
    /// unacknowledged for the broker to redeliver.
    /// </summary>
    public abstract Task StopAsync(CancellationToken cancellationToken);

    /// <summary>A snapshot for /stats and /health.</summary>
    public abstract SourceStatus GetStatus();

    /// <summary>
    /// Moves the source's stored positions to <paramref name="target"/> in one transaction, after
    /// everything consumed so far is durable, and resumes consuming from there; the partitions
    /// moved. Throws <see cref="SourceResetException"/> when refused or when nothing could be changed.
    /// </summary>
    public virtual Task<IReadOnlyList<PartitionReset>> ResetAsync(SourceResetTarget target, CancellationToken cancellationToken) =>
        throw new SourceResetException(SourceResetProblem.NotSupported, $"The {Kind} source '{Name}' cannot be reset.");

    /// <summary>
    /// The offsets <paramref name="target"/> means now, per partition, as a <see cref="SourceResetKind.Offsets"/>
    /// target, without moving anything: a cluster resolves "earliest", "latest" or a time once, on the node that took
    /// the request, so that every node goes to the same offsets. Throws as <see cref="ResetAsync"/> does.
    /// </summary>
    public virtual Task<SourceResetTarget> ResolveAsync(SourceResetTarget target, CancellationToken cancellationToken) =>
        throw new SourceResetException(SourceResetProblem.NotSupported, $"The {Kind} source '{Name}' cannot be reset.");

    public abstract ValueTask DisposeAsync();
}
