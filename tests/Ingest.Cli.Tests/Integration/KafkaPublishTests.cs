using System.Diagnostics;
using System.Text;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Cli.Publishing;
using Ingest.Cli.Tests.Support;
using Ingest.Contracts.Messages;
using Ingest.Testing.Brokers;

namespace Ingest.Cli.Tests.Integration;

/// <summary>Publishes with <c>ingest publish kafka</c> to a real broker and reads the messages back with a plain consumer.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaPublishTests(BrokerFixture brokers)
{
    [Fact]
    public async Task Publish_kafka_sends_documents_keyed_by_id_with_headers_and_deletes_as_tombstones()
    {
        var bootstrap = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = $"ingest-cli-test-{Guid.NewGuid():N}";
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrap }).Build();

        // One partition, so that reading it from the start returns every message in publish order.
        await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = 1, ReplicationFactor = 1 }]);
        try
        {
            using var input = TempFile.Write("{\"id\":\"orders/1\",\"total\":10}\n{\"id\":\"orders/2\",\"total\":20}\n");

            var put = await CommandLineRun.RunAsync(
                "publish", "kafka", "--bootstrap", bootstrap, "--topic", topic, "--lines", "--id-property", "id", "--collection", "Orders", input.Path);
            var delete = await CommandLineRun.RunAsync(
                "publish", "kafka", "--bootstrap", bootstrap, "--topic", topic, "--id", "orders/1", "--delete");

            Assert.True(put.ExitCode == 0, put.ToString());
            Assert.Matches($"^published 2 documents to kafka topic {topic} in [0-9]+ ms$", put.Output.TrimEnd());
            Assert.True(delete.ExitCode == 0, delete.ToString());
            Assert.Matches($"^published 1 document to kafka topic {topic} in [0-9]+ ms$", delete.Output.TrimEnd());

            var messages = Consume(bootstrap, topic, count: 3);

            Assert.Equal(["orders/1", "orders/2", "orders/1"], messages.Select(m => m.Key));
            Assert.Equal("{\"id\":\"orders/1\",\"total\":10}", Encoding.UTF8.GetString(messages[0].Value));
            Assert.Equal("{\"id\":\"orders/2\",\"total\":20}", Encoding.UTF8.GetString(messages[1].Value));
            Assert.Equal("orders/2", Header(messages[1], IngestHeaders.Id));
            Assert.Equal("Orders", Header(messages[1], IngestHeaders.Collection));
            Assert.Null(Header(messages[1], IngestHeaders.Operation));

            // Every message carries a W3C traceparent: one trace for the run, a span id per message.
            var parents = messages.Take(2).Select(m => System.Diagnostics.ActivityContext.Parse(Header(m, "traceparent")!, null)).ToList();
            Assert.Equal(parents[0].TraceId, parents[1].TraceId);
            Assert.NotEqual(parents[0].SpanId, parents[1].SpanId);

            Assert.Null(messages[2].Value);
            Assert.Equal("orders/1", Header(messages[2], IngestHeaders.Id));
            Assert.Equal("delete", Header(messages[2], IngestHeaders.Operation));
            Assert.Null(Header(messages[2], IngestHeaders.Collection));
        }
        finally
        {
            await admin.DeleteTopicsAsync([topic]);
        }
    }

    [Fact]
    public async Task A_recorded_publish_span_is_the_parent_every_message_carries()
    {
        var bootstrap = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = $"ingest-cli-span-{Guid.NewGuid():N}";
        var spans = new List<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = source => source.Name == PublishTraceContext.SourceName,
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = activity =>
            {
                lock (spans)
                {
                    spans.Add(activity);
                }
            },
        };
        ActivitySource.AddActivityListener(listener);

        var messages = await PublishTwoAsync(bootstrap, topic);

        var span = Assert.Single(spans, s => s.DisplayName == $"publish kafka topic {topic}");
        Assert.Equal(ActivityKind.Producer, span.Kind);
        Assert.Equal(2, span.GetTagItem("messaging.batch.message_count"));
        foreach (var message in messages)
        {
            var parent = ActivityContext.Parse(Header(message, "traceparent")!, null);
            Assert.Equal(span.TraceId, parent.TraceId);
            Assert.Equal(span.SpanId, parent.SpanId);
        }
    }

    [Fact]
    public async Task The_publish_span_is_exported_over_OTLP_when_an_endpoint_is_set()
    {
        var bootstrap = (await brokers.GetKafkaAsync()).BootstrapServers;
        var topic = $"ingest-cli-otlp-{Guid.NewGuid():N}";
        using var collector = new OtlpHttpReceiver();
        Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_ENDPOINT", collector.Endpoint);
        Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf");
        List<Message<string, byte[]>> messages;
        try
        {
            messages = await PublishTwoAsync(bootstrap, topic);
        }
        finally
        {
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_ENDPOINT", null);
            Environment.SetEnvironmentVariable("OTEL_EXPORTER_OTLP_PROTOCOL", null);
        }

        // The exported request carries the span the messages name as their parent (trace and span id as raw bytes).
        var parent = ActivityContext.Parse(Header(messages[0], "traceparent")!, null);
        var traceId = Convert.FromHexString(parent.TraceId.ToHexString());
        var spanId = Convert.FromHexString(parent.SpanId.ToHexString());
        Assert.Contains(collector.Requests, r => r.Path == "/v1/traces" && r.Body.AsSpan().IndexOf(traceId) >= 0 && r.Body.AsSpan().IndexOf(spanId) >= 0);
        Assert.Equal(parent.SpanId.ToHexString(), ActivityContext.Parse(Header(messages[1], "traceparent")!, null).SpanId.ToHexString());
    }

    private static async Task<List<Message<string, byte[]>>> PublishTwoAsync(string bootstrap, string topic)
    {
        using var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = bootstrap }).Build();
        await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = 1, ReplicationFactor = 1 }]);
        try
        {
            using var input = TempFile.Write("{\"id\":\"orders/1\"}\n{\"id\":\"orders/2\"}\n");
            var put = await CommandLineRun.RunAsync("publish", "kafka", "--bootstrap", bootstrap, "--topic", topic, "--lines", "--id-property", "id", input.Path);
            Assert.True(put.ExitCode == 0, put.ToString());
            return Consume(bootstrap, topic, count: 2);
        }
        finally
        {
            await admin.DeleteTopicsAsync([topic]);
        }
    }

    private static List<Message<string, byte[]>> Consume(string bootstrap, string topic, int count)
    {
        var config = new ConsumerConfig
        {
            BootstrapServers = bootstrap,
            GroupId = topic,
            EnableAutoCommit = false,
            AutoOffsetReset = AutoOffsetReset.Earliest,
        };
        using var consumer = new ConsumerBuilder<string, byte[]>(config).Build();
        consumer.Assign(new TopicPartitionOffset(topic, 0, Offset.Beginning));

        var messages = new List<Message<string, byte[]>>();
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (messages.Count < count && DateTime.UtcNow < deadline)
        {
            if (consumer.Consume(TimeSpan.FromMilliseconds(500)) is { IsPartitionEOF: false } result)
            {
                messages.Add(result.Message);
            }
        }

        consumer.Close();
        Assert.True(messages.Count == count, $"read {messages.Count} of {count} messages from {topic} within 30 s");
        return messages;
    }

    private static string? Header(Message<string, byte[]> message, string name) =>
        message.Headers.TryGetLastBytes(name, out var value) ? Encoding.UTF8.GetString(value) : null;
}
