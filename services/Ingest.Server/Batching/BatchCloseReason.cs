namespace Ingest.Server.Batching;

/// <summary>Why a batch stopped taking items.</summary>
public enum BatchCloseReason
{
    /// <summary>It reached <see cref="BatchingOptions.MaxMessages"/>.</summary>
    Count = 0,

    /// <summary>It reached <see cref="BatchingOptions.MaxBytes"/>, or the next item would have pushed it over.</summary>
    Bytes = 1,

    /// <summary><see cref="BatchingOptions.MaxDelay"/> passed since its first item.</summary>
    Delay = 2,

    /// <summary>Closed on request (<see cref="Batcher{TItem}.Flush"/> or <see cref="Batcher{TItem}.Complete"/>).</summary>
    Flush = 3,
}
