namespace Ingest.Server.Etl;

/// <summary>A broker an ETL task publishes to.</summary>
internal interface IEtlDestination : IAsyncDisposable
{
    /// <summary>Where messages go, for status and logs (no credentials).</summary>
    string Describe { get; }

    /// <summary>
    /// Hands the messages to the broker client in order and completes once it has them all, so the
    /// caller can send the next batch while this one is being acknowledged. The returned task completes
    /// once the broker acknowledged every one of them, and faults (<see cref="EtlDeliveryException"/>)
    /// if any was not, or if the destination was disposed first; some may have been delivered anyway,
    /// so the caller sends everything after its last recorded progress again (at-least-once). The
    /// messages' bodies may lie in memory the caller reuses once the returned task completed: a
    /// destination reads them until then and copies whatever it keeps longer.
    /// </summary>
    /// <exception cref="EtlDeliveryException">The client refused a message or the connection failed.</exception>
    ValueTask<Task> SendAsync(IReadOnlyList<EtlMessage> messages, CancellationToken cancellationToken);
}
