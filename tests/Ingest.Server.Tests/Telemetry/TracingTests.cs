using System.Diagnostics;
using System.Text;
using Confluent.Kafka;
using Ingest.Documents;
using Ingest.Indexing.Runtime;
using Ingest.Server.Etl;
using Ingest.Server.Indexes;
using Ingest.Server.Sources;
using Ingest.Server.Telemetry;
using Ingest.Server.Tests.Hosting.Http;
using Ingest.Server.Tests.Sources.RabbitMq;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using RabbitMQ.Client;
using Ingest.Query;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Telemetry;

/// <summary>Spans recorded in process (an ActivityListener) while real brokers feed a live server.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class TracingTests(BrokerFixture brokers)
{
    private static readonly TimeSpan Patience = TimeSpan.FromSeconds(60);

    [Fact]
    public async Task Kafka_messages_with_a_traceparent_are_linked_from_their_batch_span_and_index_etl_and_query_spans_follow()
    {
        using var spans = new RecordedSpans();
        var kafka = await brokers.GetKafkaAsync();
        var input = NewName("trace-in");
        var output = NewName("trace-out");
        var source = NewName("tsrc");
        var index = $"Orders/Trace{Guid.NewGuid():N}";
        var etl = NewName("trace-etl");
        await CreateTopicAsync(kafka.BootstrapServers, input, 1);
        await CreateTopicAsync(kafka.BootstrapServers, output, 1);
        var producers = Enumerable.Range(0, 3).Select(_ => new ActivityContext(ActivityTraceId.CreateRandom(), ActivitySpanId.CreateRandom(), ActivityTraceFlags.Recorded)).ToList();
        await ProduceAsync(kafka.BootstrapServers, input, [
            .. producers.Select((p, i) => Record($"orders/{i}", $$"""{"customer":"c{{i}}"}""", ("traceparent", $"00-{p.TraceId}-{p.SpanId}-01"))),
            Record("orders/untraced", """{"customer":"none"}"""),
        ]);

        await using var server = await ApiTestServer.StartAsync(
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={input}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            $"--Ingest:Sources:Kafka:0:Name={source}",
            "--Ingest:Sources:Kafka:0:Collection=Orders",
            $"--Ingest:Indexes:0:Name={index}",
            "--Ingest:Indexes:0:Collections:0=Orders",
            "--Ingest:Indexes:0:Fields:0:Name=Customer",
            "--Ingest:Indexes:0:Fields:0:Path=customer",
            "--Ingest:Indexes:0:Fields:0:Type=keyword",
            $"--Ingest:Etl:0:Name={etl}", "--Ingest:Etl:0:Collections:0=Orders", "--Ingest:Etl:0:Source=/ingest/test",
            $"--Ingest:Etl:0:Kafka:BootstrapServers={kafka.BootstrapServers}", $"--Ingest:Etl:0:Kafka:Topic={output}");
        var ingestion = server.Server.Services.GetRequiredService<IngestionService>().Find(source)!;
        await WaitUntilAsync(() => ingestion.GetStatus().Written == 4, Patience, "4 documents written");

        // The batch spans of this source link to exactly the three producers that sent a traceparent.
        await WaitUntilAsync(() => spans.Named(IngestTracing.BatchActivityName, TelemetryTags.Source, source).Sum(a => a.Links.Count()) == 3, Patience, "batch spans linking the producers");
        var batches = spans.Named(IngestTracing.BatchActivityName, TelemetryTags.Source, source);
        var linked = batches.SelectMany(b => b.Links).Select(l => l.Context).ToList();
        Assert.Equal(producers.Select(p => $"{p.TraceId}-{p.SpanId}").Order(), linked.Select(l => $"{l.TraceId}-{l.SpanId}").Order());
        Assert.All(batches, b => Assert.Equal(default, b.ParentSpanId));
        Assert.Equal(4, batches.Sum(b => (int)b.GetTagItem(TelemetryTags.BatchMessageCount)!));
        Assert.All(batches, b => Assert.NotNull(b.GetTagItem("ingest.batch.commit_latency_ms")));

        // The index committed its batches under spans of their own.
        await WaitUntilAsync(() => spans.Named(IndexingTelemetry.BatchActivityName, IndexingTelemetry.IndexTag, index).Sum(a => (int)a.GetTagItem("ingest.index.batch.documents")!) == 4, Patience, "index batch spans");

        // The ETL sent each document under an ETL batch span and put that span's traceparent on the message.
        var sent = EtlTestKitMessages(kafka.BootstrapServers, output, 4);
        var contexts = sent.Select(traceParent => ActivityContext.TryParse(traceParent, null, out var context) ? context : throw new Xunit.Sdk.XunitException($"not a traceparent: {traceParent}")).ToList();
        await WaitUntilAsync(
            () => contexts.All(c => spans.Named(EtlTracing.BatchActivityName, EtlTracing.TaskTag, etl).Any(s => s.TraceId == c.TraceId && s.SpanId == c.SpanId)),
            Patience, "every sent message's traceparent naming an etl batch span");

        // A query's span carries its text with the literal redacted, and the index that answered it.
        using (var response = await Queries.QueryTestKit.PostAsync(server.Client, $"from index '{index}' where Customer = 'c1'"))
        {
            Assert.True(response.IsSuccessStatusCode, await response.Content.ReadAsStringAsync());
        }

        var query = Assert.Single(spans.Named(QueryTracing.ActivityName, QueryTracing.IndexTag, index));
        Assert.Equal("from index ? where Customer = ?", query.GetTagItem(QueryTracing.QueryTextTag));
    }

    [Fact]
    public async Task A_rabbitmq_message_with_a_traceparent_header_is_linked_from_its_batch_span()
    {
        using var spans = new RecordedSpans();
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = NewName("trace-q");
        var source = NewName("tsrc");
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        var producer = new ActivityContext(ActivityTraceId.CreateRandom(), ActivitySpanId.CreateRandom(), ActivityTraceFlags.Recorded);
        await client.PublishAsync(queue, 1, _ => (
            new BasicProperties { MessageId = "orders/1", Headers = new Dictionary<string, object?> { ["traceparent"] = $"00-{producer.TraceId}-{producer.SpanId}-01" } },
            """{"customer":"Ada"}"""u8.ToArray()));
        try
        {
            await using var server = await ApiTestServer.StartAsync(
                $"--Ingest:Sources:RabbitMq:0:Uri={rabbit.Uri}", $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}", $"--Ingest:Sources:RabbitMq:0:Name={source}");
            await WaitUntilAsync(() => spans.Named(IngestTracing.BatchActivityName, TelemetryTags.Source, source).Count > 0, Patience, "a batch span");
            var batch = Assert.Single(spans.Named(IngestTracing.BatchActivityName, TelemetryTags.Source, source));
            var link = Assert.Single(batch.Links);
            Assert.Equal(producer.TraceId, link.Context.TraceId);
            Assert.Equal(producer.SpanId, link.Context.SpanId);
            Assert.NotNull(server.Store.Get("orders/1"));
        }
        finally
        {
            await client.DeleteAsync(queue);
        }
    }

    /// <summary>The traceparent header of each of the first <paramref name="count"/> messages on the topic.</summary>
    private static List<string> EtlTestKitMessages(string bootstrap, string topic, int count) =>
        [.. Etl.EtlTestKit.ConsumeKafka(bootstrap, topic, count).Select(m => Encoding.UTF8.GetString(
            m.Headers.LastOrDefault(h => h.Key == IngestTracing.TraceParentHeader)?.GetValueBytes() ?? throw new Xunit.Sdk.XunitException($"message {m.Key} has no traceparent")))];
}
