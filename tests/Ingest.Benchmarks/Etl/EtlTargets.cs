using Confluent.Kafka;
using Confluent.Kafka.Admin;
using RabbitMQ.Client;

namespace Ingest.Benchmarks.Etl;

/// <summary>Creates and removes the topics, exchanges and queues the ETL workloads send to.</summary>
internal static class EtlTargets
{
    public static async Task<EtlTarget> CreateKafkaAsync(string bootstrapServers, string label)
    {
        var topic = $"bench-etl-{label}-{Guid.NewGuid():N}";
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build();
        await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = EtlTarget.KafkaPartitions, ReplicationFactor = 1 }]).ConfigureAwait(false);
        return new EtlTarget(bootstrapServers, null, topic);
    }

    /// <summary>A direct exchange bound to a durable queue by <see cref="EtlTarget.RoutingKey"/>, so mandatory publishing is routed.</summary>
    public static async Task<EtlTarget> CreateRabbitMqAsync(Uri uri, string label)
    {
        var name = $"bench-etl-{label}-{Guid.NewGuid():N}";
        await WithChannelAsync(uri, async channel =>
        {
            await channel.ExchangeDeclareAsync(name, ExchangeType.Direct, durable: true).ConfigureAwait(false);
            await channel.QueueDeclareAsync(name, durable: true, exclusive: false, autoDelete: false).ConfigureAwait(false);
            await channel.QueueBindAsync(name, name, EtlTarget.RoutingKey).ConfigureAwait(false);
        }).ConfigureAwait(false);
        return new EtlTarget(null, uri, name);
    }

    /// <summary>Removes the target; a failure is reported, never fatal to the results.</summary>
    public static async Task DeleteAsync(EtlTarget target)
    {
        try
        {
            if (target.Kafka is { } kafka)
            {
                using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka }).Build();
                await admin.DeleteTopicsAsync([target.Name]).ConfigureAwait(false);
            }
            else
            {
                await WithChannelAsync(target.RabbitMq!, async channel =>
                {
                    await channel.QueueDeleteAsync(target.Name).ConfigureAwait(false);
                    await channel.ExchangeDeleteAsync(target.Name).ConfigureAwait(false);
                }).ConfigureAwait(false);
            }
        }
#pragma warning disable CA1031 // Clean-up problems are reported, never fatal to the results.
        catch (Exception e)
#pragma warning restore CA1031
        {
            Console.WriteLine($"warning: removing {target.Name} failed: {e.Message}");
        }
    }

    private static async Task WithChannelAsync(Uri uri, Func<IChannel, Task> action)
    {
        var factory = new ConnectionFactory { Uri = uri, AutomaticRecoveryEnabled = false };
        await using var connection = await factory.CreateConnectionAsync().ConfigureAwait(false);
        await using var channel = await connection.CreateChannelAsync().ConfigureAwait(false);
        await action(channel).ConfigureAwait(false);
        await channel.CloseAsync().ConfigureAwait(false);
        await connection.CloseAsync().ConfigureAwait(false);
    }
}
