using Microsoft.Extensions.Primitives;

namespace Ingest.Server.Cluster;

/// <summary>
/// <c>?after=partition:offset</c> on a read: waits until this node has applied those cluster positions, so a client
/// that wrote on one node reads its write on another (pass the write's <c>X-Ingest-Position</c>). Repeat the
/// parameter or separate positions with commas for several partitions. 400 for a malformed position or a partition
/// the topic does not have, 504 when not applied within the apply timeout, and 400 on a node that is not in a cluster
/// (a single node has no positions to wait for; accepting the parameter silently would promise what it cannot keep).
/// </summary>
internal sealed class AfterPositionFilter : IEndpointFilter
{
    public const string Parameter = "after";

    public static AfterPositionFilter Instance { get; } = new();

    public async ValueTask<object?> InvokeAsync(EndpointFilterInvocationContext context, EndpointFilterDelegate next)
    {
        ArgumentNullException.ThrowIfNull(context);
        ArgumentNullException.ThrowIfNull(next);
        var http = context.HttpContext;
        var values = http.Request.Query[Parameter];
        if (values.Count == 0)
        {
            return await next(context).ConfigureAwait(false);
        }

        if (http.RequestServices.GetService<IClusterLog>() is not KafkaClusterLog log)
        {
            return ClusterProblems.NotClustered();
        }

        if (!TryParse(values, log.PartitionCount, out var positions, out var problem))
        {
            return problem;
        }

        var waits = new Task[positions.Count];
        for (var i = 0; i < positions.Count; i++)
        {
            waits[i] = log.WaitAppliedAsync(positions[i], http.RequestAborted);
        }

        try
        {
            await Task.WhenAll(waits).ConfigureAwait(false);
        }
        catch (ClusterApplyTimeoutException ex)
        {
            return ClusterProblems.NotApplied(ex);
        }

        return await next(context).ConfigureAwait(false);
    }

    /// <summary>The positions named, the highest offset per partition; false with the problem for anything malformed.</summary>
    public static bool TryParse(StringValues values, int partitions, out List<ClusterPosition> positions, out IResult problem)
    {
        positions = [];
        problem = null!;
        foreach (var value in values)
        {
            foreach (var part in (value ?? string.Empty).Split(',', StringSplitOptions.TrimEntries))
            {
                if (!ClusterPosition.TryParse(part, out var position))
                {
                    problem = ClusterProblems.BadAfter(part, "give a cluster position as partition:offset, e.g. ?after=0:42 (several as ?after=0:42,2:7), as a write's X-Ingest-Position header says");
                    return false;
                }

                if (position.Partition >= partitions)
                {
                    problem = ClusterProblems.BadAfter(part, $"the cluster topic has {partitions} partitions (0 to {partitions - 1})");
                    return false;
                }

                var known = positions.FindIndex(p => p.Partition == position.Partition);
                if (known < 0)
                {
                    positions.Add(position);
                }
                else if (positions[known].Offset < position.Offset)
                {
                    positions[known] = position;
                }
            }
        }

        return true;
    }
}
