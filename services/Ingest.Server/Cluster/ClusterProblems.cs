namespace Ingest.Server.Cluster;

/// <summary>The problems cluster mode answers with: Kafka unreachable (503), not applied in time (504), a bad <c>?after=</c> (400).</summary>
internal static class ClusterProblems
{
    public static IResult Unavailable(ClusterUnavailableException exception) =>
        TypedResults.Problem(title: "The cluster's log is unavailable", detail: exception.Message, statusCode: StatusCodes.Status503ServiceUnavailable);

    public static IResult NotApplied(ClusterApplyTimeoutException exception) =>
        TypedResults.Problem(
            title: "Not applied on this node in time",
            detail: exception.Message + " The write itself is in the cluster's log and every node applies it; retry the read later, or on another node.",
            statusCode: StatusCodes.Status504GatewayTimeout);

    public static IResult NotClustered() =>
        TypedResults.Problem(
            title: "Invalid parameter 'after'",
            detail: "This node is not in a cluster, so there is no cluster position to wait for: drop ?after=, or set Ingest:Cluster:Node to run this node as part of a cluster.",
            statusCode: StatusCodes.Status400BadRequest);

    public static IResult BadAfter(string value, string expectation) =>
        TypedResults.Problem(
            title: "Invalid parameter 'after'",
            detail: $"The parameter 'after' is '{(value.Length <= 200 ? value : value[..200] + "...")}': {expectation}.",
            statusCode: StatusCodes.Status400BadRequest);
}
