namespace Ingest.Server.Etl;

/// <summary>A broker an ETL task publishes to.</summary>
internal interface IEtlDestination : IAsyncDisposable
{
    /// <summary>Where messages go, for status and logs (no credentials).</summary>
    string Describe { get; }

    /// <summary>
    /// Publishes the messages pipelined, in order per key, and completes once the broker has
    /// acknowledged every one of them. Throws if any was not acknowledged; some may have been
    /// delivered anyway, so the caller sends the whole batch again (at-least-once).
    /// </summary>
    Task PublishAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken);
}
