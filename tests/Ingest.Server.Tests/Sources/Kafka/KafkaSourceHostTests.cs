using System.Text;
using Ingest.Documents;
using Ingest.Server.Sources;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

[Collection(BrokerFixture.Collection)]
public sealed class KafkaSourceHostTests(BrokerFixture brokers)
{
    [Fact]
    public async Task The_host_runs_a_configured_kafka_source_into_its_store()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("src-host");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await ProduceAsync(kafka.BootstrapServers, topic, [Record("host-1", """{"hello":"world"}""")]);
        using var testDirectory = new TestDirectory();
        var data = testDirectory.Path;
        await using (var server = await RunningServer.StartAsync(
            data,
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            "--Ingest:Sources:Kafka:0:Name=orders"))
        {
            var store = server.Services.GetRequiredService<DocumentStore>();
            await WaitUntilAsync(() => store.Get("host-1") is not null, TimeSpan.FromSeconds(60), "the document stored");
            var document = store.Get("host-1")!;
            Assert.Equal(topic, document.Collection);
            Assert.Equal("""{"hello":"world"}""", Encoding.UTF8.GetString(document.Body.Span));
            var source = server.Services.GetRequiredService<IngestionService>().Find("orders");
            Assert.NotNull(source);
            Assert.Equal("kafka", source.Kind);
            Assert.Equal(1, source.GetStatus().Consumed);
        }
    }
}
