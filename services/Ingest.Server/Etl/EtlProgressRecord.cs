using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// The body of an <c>etl-progress</c> cluster record (key <c>etl.&lt;task&gt;</c>): the task and, per log partition, the
/// highest position its owner sent and had acknowledged. For example
/// <c>{"task":"orders","positions":[{"topic":"orders","partition":0,"offset":41}]}</c>.
/// </summary>
internal sealed record EtlProgressRecord(string Task, List<LogPosition> Positions)
{
    public const string Kind = "etl-progress";

    public static string KeyOf(string task) => $"etl.{task.ToLowerInvariant()}";
}
