using System.Text;
using Confluent.Kafka;
using Confluent.Kafka.Admin;

namespace Ingest.Console.Tests.Sources;

/// <summary>A topic of the run's Kafka broker with a name of its own, and records produced to it.</summary>
internal sealed record KafkaTopic(string BootstrapServers, string Name)
{
    public static async Task<KafkaTopic> CreateAsync(string bootstrapServers, string prefix)
    {
        var topic = new KafkaTopic(bootstrapServers, $"{prefix}-{Guid.NewGuid():N}");
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrapServers }).Build();
        await admin.CreateTopicsAsync([new TopicSpecification { Name = topic.Name, NumPartitions = 1, ReplicationFactor = 1 }]);
        return topic;
    }

    /// <summary>Produces each (key, value, headers) in order and waits until the broker has every one.</summary>
    public async Task ProduceAsync(params (string Key, string Value, (string Name, string Value)[] Headers)[] records)
    {
        using var producer = new ProducerBuilder<string, string>(new ProducerConfig { BootstrapServers = BootstrapServers, Acks = Acks.All, EnableIdempotence = true })
            .SetLogHandler(static (_, _) => { })
            .Build();
        foreach (var (key, value, headers) in records)
        {
            var message = new Message<string, string> { Key = key, Value = value, Headers = [] };
            foreach (var (name, headerValue) in headers)
            {
                message.Headers.Add(name, Encoding.UTF8.GetBytes(headerValue));
            }

            await producer.ProduceAsync(Name, message);
        }
    }
}
