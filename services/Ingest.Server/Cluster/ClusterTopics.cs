using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Documents;
using Ingest.Server.Brokers;

namespace Ingest.Server.Cluster;

/// <summary>
/// The cluster's topics at start: the cluster topic is created with the configured partitions and replication factor
/// when absent, and checked when present (its real partition count is used, and said when it differs from the
/// settings); the lease topic is created with one partition. A cluster topic this node cannot use stops the start
/// with the reason: Kafka unreachable, or a topic holding fewer records than this node's store has applied (deleted
/// and recreated, or another cluster's).
/// </summary>
internal sealed partial class ClusterTopics(ClusterOptions options, DocumentStore store, ILogger<ClusterTopics> logger)
{
    private static readonly TimeSpan MetadataTimeout = TimeSpan.FromSeconds(20);

    /// <summary>Makes sure both topics exist; returns the cluster topic's partition count.</summary>
    public async Task<int> EnsureAsync(CancellationToken cancellationToken)
    {
        var config = KafkaClientSettings.Apply(new AdminClientConfig(), options.BootstrapServers!, options.Settings);
        config.ClientId = $"ingest-{options.Node}/admin";
        using var admin = new AdminClientBuilder(config).Build();
        var partitions = await EnsureTopicAsync(admin, options.Topic, options.Partitions, cancellationToken).ConfigureAwait(false);
        if (partitions != options.Partitions)
        {
            LogPartitionsDiffer(logger, options.Topic, partitions, options.Partitions);
        }

        await EnsureTopicAsync(admin, options.LeaseTopic, 1, cancellationToken).ConfigureAwait(false);
        CheckAgainstStore(partitions);
        return partitions;
    }

    private async Task<int> EnsureTopicAsync(IAdminClient admin, string topic, int partitions, CancellationToken cancellationToken)
    {
        if (Describe(admin, topic) is { } existing)
        {
            return existing;
        }

        try
        {
            await admin.CreateTopicsAsync(
                [new TopicSpecification { Name = topic, NumPartitions = partitions, ReplicationFactor = options.ReplicationFactor }]).ConfigureAwait(false);
            LogCreated(logger, topic, partitions, options.ReplicationFactor);
        }
        catch (CreateTopicsException ex) when (ex.Results.TrueForAll(static r => r.Error.Code is ErrorCode.TopicAlreadyExists or ErrorCode.NoError))
        {
            // Another node created it at the same moment.
        }
        catch (CreateTopicsException ex)
        {
            var error = ex.Results.Find(static r => r.Error.IsError)?.Error ?? ex.Error;
            throw new InvalidOperationException(
                $"Cluster mode: could not create the topic '{topic}' ({partitions} partitions, replication factor {options.ReplicationFactor}) at {options.BootstrapServers}: "
                + $"{KafkaClientError.Describe(error.Code, error.Reason, options.Settings)}. Create it yourself, or fix {ClusterOptions.SectionName}:ReplicationFactor "
                + "(it cannot exceed the number of brokers).",
                ex);
        }

        // Metadata can lag a creation by a moment.
        for (var attempt = 0; attempt < 50; attempt++)
        {
            cancellationToken.ThrowIfCancellationRequested();
            if (Describe(admin, topic) is { } created)
            {
                return created;
            }

            await Task.Delay(100, cancellationToken).ConfigureAwait(false);
        }

        throw new InvalidOperationException($"Cluster mode: the topic '{topic}' was created at {options.BootstrapServers} but its partitions never showed in the metadata.");
    }

    // The topic's partition count, or null when it does not exist.
    private int? Describe(IAdminClient admin, string topic)
    {
        Metadata metadata;
        try
        {
            // Every topic's metadata, not this one's: a metadata request naming a topic lets a broker with
            // auto.create.topics.enable create it on the spot, with the broker's default partition count.
            metadata = admin.GetMetadata(MetadataTimeout);
        }
        catch (KafkaException ex)
        {
            throw new InvalidOperationException(
                $"Cluster mode: Kafka at {options.BootstrapServers} did not answer within {MetadataTimeout.TotalSeconds:0} s "
                + $"({KafkaClientError.Describe(ex.Error.Code, ex.Error.Reason, options.Settings)}). A cluster node cannot start without its cluster topic; "
                + $"check {ClusterOptions.SectionName}:BootstrapServers and that Kafka is running.",
                ex);
        }

        var described = metadata.Topics.Find(t => string.Equals(t.Topic, topic, StringComparison.Ordinal));
        if (described is null || described.Error.Code == ErrorCode.UnknownTopicOrPart || described.Partitions.Count == 0)
        {
            return null;
        }

        if (described.Error.IsError)
        {
            throw new InvalidOperationException(
                $"Cluster mode: the topic '{topic}' cannot be used: {KafkaClientError.Describe(described.Error.Code, described.Error.Reason, options.Settings)}.");
        }

        foreach (var partition in described.Partitions)
        {
            if (partition.Leader < 0)
            {
                return null; // just created (by another node, maybe): not usable until every partition has a leader
            }
        }

        return described.Partitions.Count;
    }

    // A store that has applied further than the topic reaches would wait forever for offsets that belong to another log.
    private void CheckAgainstStore(int partitions)
    {
        var stored = store.GetSourcePositions(ClusterApplier.Origin(options));
        if (stored.Count == 0)
        {
            return;
        }

        var config = KafkaClientSettings.Apply(new ConsumerConfig(), options.BootstrapServers!, options.Settings);
        config.GroupId = ClusterApplier.GroupId(options);
        config.ClientId = $"ingest-{options.Node}/check";
        using var consumer = new ConsumerBuilder<Ignore, Ignore>(config).Build();
        foreach (var position in stored)
        {
            var partition = position.Position.Partition;
            if (partition >= partitions)
            {
                throw new InvalidOperationException(
                    $"Cluster mode: this node's store has applied partition {partition} of '{options.Topic}', which now has {partitions} partitions: "
                    + "the topic was recreated, or the data directory belongs to another cluster. Point the node at its own topic, or start it on an empty data directory.");
            }

            var high = consumer.QueryWatermarkOffsets(new TopicPartition(options.Topic, partition), MetadataTimeout).High.Value;
            if (position.Position.NextOffset > high)
            {
                throw new InvalidOperationException(
                    $"Cluster mode: this node's store has applied '{options.Topic}' partition {partition} up to offset {position.Position.NextOffset}, "
                    + $"but the topic ends at {high}: it was deleted and recreated, or the data directory belongs to another cluster. "
                    + "Point the node at its own topic, or start it on an empty data directory.");
            }
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Cluster: created topic '{Topic}' ({Partitions} partitions, replication factor {Replication})")]
    private static partial void LogCreated(ILogger logger, string topic, int partitions, short replication);

    [LoggerMessage(Level = LogLevel.Warning, Message = "Cluster: topic '{Topic}' exists with {Found} partitions, not the {Configured} the settings ask for; using the topic as it is")]
    private static partial void LogPartitionsDiffer(ILogger logger, string topic, int found, int configured);
}
