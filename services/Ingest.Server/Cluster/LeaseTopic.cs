using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Server.Brokers;

namespace Ingest.Server.Cluster;

/// <summary>The one-partition topic the owner groups subscribe to (<see cref="ClusterOptions.LeaseTopic"/>); nothing is produced to it.</summary>
internal static class LeaseTopic
{
    /// <summary>Creates the lease topic if it is absent (one partition, the cluster's replication factor); another node creating it first is fine.</summary>
    /// <exception cref="InvalidOperationException">It exists with more than one partition: a second member could own a partition no one reads as the lease.</exception>
    public static async Task EnsureAsync(ClusterOptions options, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(options);
        var config = KafkaClientSettings.Apply(new AdminClientConfig(), options.BootstrapServers!, options.Settings);
        config.ClientId = OwnerLease.ClientIdOf(options.Node!);
        using var admin = new AdminClientBuilder(config).SetLogHandler(static (_, _) => { }).Build();
        try
        {
            await admin.CreateTopicsAsync(
                [new TopicSpecification { Name = options.LeaseTopic, NumPartitions = 1, ReplicationFactor = options.ReplicationFactor }],
                new CreateTopicsOptions { RequestTimeout = TimeSpan.FromSeconds(30) }).WaitAsync(cancellationToken).ConfigureAwait(false);
        }
        catch (CreateTopicsException ex) when (ex.Results.TrueForAll(static r => r.Error.Code is ErrorCode.NoError or ErrorCode.TopicAlreadyExists))
        {
        }

        var metadata = admin.GetMetadata(options.LeaseTopic, TimeSpan.FromSeconds(30));
        var partitions = metadata.Topics.Count == 0 ? 0 : metadata.Topics[0].Partitions.Count;
        if (partitions != 1)
        {
            throw new InvalidOperationException(
                $"{ClusterOptions.SectionName}:LeaseTopic '{options.LeaseTopic}' has {partitions} partitions; it must have exactly one "
                + "(the member assigned partition 0 owns a task). Delete it or name another lease topic.");
        }
    }
}
