namespace Ingest.Server.Cluster;

/// <summary>
/// An HTTP write in cluster mode: produced to the cluster topic, then awaited until this node has applied it, so the
/// answer describes this node's state after the write (the client reads its own write here). The position goes back
/// in <c>X-Ingest-Position</c> for reads elsewhere (<c>?after=</c>). Kafka unreachable surfaces as
/// <see cref="ClusterUnavailableException"/> (503), not applied in time as <see cref="ClusterApplyTimeoutException"/> (504).
/// </summary>
internal static class ClusterWrites
{
    public const string PositionHeader = "X-Ingest-Position";

    /// <summary>Produces <paramref name="record"/>, waits until it is applied here, and says whether it applied or why not.</summary>
    public static async Task<ClusterWriteResult> AppendAndApplyAsync(HttpContext context, ClusterRecord record)
    {
        ArgumentNullException.ThrowIfNull(context);
        var services = context.RequestServices;
        var log = services.GetRequiredService<IClusterLog>();
        var outcomes = services.GetRequiredService<ClusterOutcomes>();
        var position = await log.AppendAsync(record, context.RequestAborted).ConfigureAwait(false);
        context.Response.Headers[PositionHeader] = position.ToString();
        await log.WaitAppliedAsync(position, context.RequestAborted).ConfigureAwait(false);
        return new ClusterWriteResult(position, outcomes.TakeFailure(position));
    }

    /// <summary>This node's cluster log, or null in single-node mode.</summary>
    public static IClusterLog? LogOf(HttpContext context) => (context ?? throw new ArgumentNullException(nameof(context))).RequestServices.GetService<IClusterLog>();
}
