using Ingest.Contracts.Http;

namespace Ingest.Server.Etl;

/// <summary>An ETL task's status as <c>/health</c> and <c>/stats</c> show it.</summary>
internal static class EtlViews
{
    public static string StateName(EtlTaskState state) => state switch
    {
        EtlTaskState.Running => "running",
        EtlTaskState.Retrying => "retrying",
        EtlTaskState.Errored => "errored",
        _ => "stopped",
    };

    /// <summary>A task whose broker fails is like a disconnected source: readiness names it. Stopped only happens during shutdown.</summary>
    public static bool IsHealthy(EtlTaskState state) => state is not (EtlTaskState.Retrying or EtlTaskState.Errored);

    public static EtlTaskHealth Health(string name, EtlTaskStatus status) =>
        new(name, StateName(status.State), status.State == EtlTaskState.Running ? null : status.LastError);

    public static EtlTaskStatsEntry Stats(string name, EtlTaskStatus status) =>
        new(name, StateName(status.State), status.Destination, status.LastSentEtag, status.LagChanges, status.LagSeconds,
            status.MessagesSent, status.MessagesPerSecond, status.Errors, status.LastError);
}
