namespace Ingest.Server.Etl;

/// <summary>What an ETL task is doing.</summary>
public enum EtlTaskState
{
    /// <summary>Not started yet, or stopped.</summary>
    Stopped,

    /// <summary>Sending, or waiting for changes.</summary>
    Running,

    /// <summary>The destination failed; the same batch is sent again after a backoff. Nothing is skipped.</summary>
    Retrying,

    /// <summary>The store failed (disk full, damage): the task stopped and says why in its last error; a new <c>PUT</c> or a restart starts it again.</summary>
    Errored,

    /// <summary>Cluster mode: another node owns the task and sends; this one takes over if that node goes.</summary>
    Standby,
}
