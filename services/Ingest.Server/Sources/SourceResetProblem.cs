namespace Ingest.Server.Sources;

/// <summary>Why a source reset was refused or failed; the API answers each with its own status.</summary>
public enum SourceResetProblem
{
    /// <summary>The source's broker cannot rewind (a RabbitMQ queue): 409.</summary>
    NotSupported,

    /// <summary>The target names a topic, partition or offset the source cannot go to: 400.</summary>
    InvalidTarget,

    /// <summary>Another reset of the same source is waiting: 409.</summary>
    InProgress,

    /// <summary>The source is not running, or the broker or the store did not answer: 503. Nothing was changed.</summary>
    Unavailable,
}
