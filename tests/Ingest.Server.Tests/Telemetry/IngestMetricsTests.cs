using Ingest.Documents;
using Ingest.Server.Indexes;
using Ingest.Server.Sources;
using Ingest.Server.Telemetry;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using Ingest.Query;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Telemetry;

/// <summary>A known workload through a live server, then its <c>/metrics</c> scrape checked metric by metric.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class IngestMetricsTests(BrokerFixture brokers) : IDisposable
{
    private readonly TestDirectory _data = new();

    public void Dispose() => _data.Dispose();

    [Fact]
    public async Task After_ingesting_from_kafka_the_scrape_reports_the_source_store_and_index_metrics_with_their_values()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("metrics");
        var source = NewName("msrc");
        var index = $"Orders/Metrics{Guid.NewGuid():N}";
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        var records = Enumerable.Range(1, 5)
            .Select(i => Record($"orders/{i}", $$"""{"customer":"c{{i}}"}""", ("ingest-collection", "Orders")))
            .Append(Record("orders/bad", "not json", ("ingest-collection", "Orders")))
            .ToList();
        await ProduceAsync(kafka.BootstrapServers, topic, records);

        await using var server = await RunningServer.StartAsync(
            _data.Path,
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            $"--Ingest:Sources:Kafka:0:Name={source}",
            $"--Ingest:Indexes:0:Name={index}",
            "--Ingest:Indexes:0:Collections:0=Orders",
            "--Ingest:Indexes:0:Fields:0:Name=Customer",
            "--Ingest:Indexes:0:Fields:0:Path=customer",
            "--Ingest:Indexes:0:Fields:0:Type=keyword");
        var ingestion = server.Services.GetRequiredService<IngestionService>().Find(source)!;
        var store = server.Services.GetRequiredService<DocumentStore>();
        var indexes = server.Services.GetRequiredService<QueryEngine>();
        await WaitUntilAsync(
            () => ingestion.GetStatus() is { Written: 5, DeadLetters: 1 } status && status.Partitions.All(p => p.Lag == 0),
            TimeSpan.FromSeconds(60), "5 documents and a dead letter written, no lag");
        await WaitUntilAsync(
            () => indexes.Indexes.GetStatus(index) is { IsStale: false, EntryCount: 5 }, TimeSpan.FromSeconds(30), "the index caught up");

        using var response = await server.Client.GetAsync(Relative(TelemetryServiceCollectionExtensions.MetricsPath));
        var scrape = new PrometheusText(await response.Content.ReadAsStringAsync());

        (string, string)[] sourceLabels = [("ingest_source", source), ("messaging_system", "kafka")];
        Assert.True(scrape.HasType("messaging_client_consumed_messages_total", "counter"), scrape.Text);
        Assert.Equal(6, scrape.Value("messaging_client_consumed_messages_total", sourceLabels));
        Assert.Equal(5, scrape.Value("ingest_source_operations_written_total", sourceLabels));
        Assert.Equal(1, scrape.Value("ingest_source_dead_letters_total", sourceLabels));
        Assert.Equal(0, scrape.Value("ingest_source_paused", sourceLabels));
        Assert.Equal(1, scrape.Value("ingest_source_connected", sourceLabels));
        Assert.Equal(0, scrape.Value("ingest_source_lag", [.. sourceLabels, ("messaging_destination_name", topic), ("messaging_destination_partition_id", "0")]));

        // Every consumed message went through a batch; each batch's commit was timed.
        Assert.True(scrape.HasType("ingest_batch_size", "histogram"), scrape.Text);
        Assert.Equal(6, scrape.Value("ingest_batch_size_sum", ("ingest_source", source)));
        var batches = scrape.Value("ingest_batch_size_count", ("ingest_source", source));
        Assert.InRange(batches, 1, 6);
        Assert.Equal(batches, scrape.Value("ingest_batch_commit_duration_seconds_count", ("ingest_source", source)));
        Assert.True(scrape.Value("ingest_batch_commit_duration_seconds_sum", ("ingest_source", source)) > 0);
        Assert.Equal(batches, scrape.Value("ingest_batch_bytes_count", ("ingest_source", source)));

        Assert.True(scrape.Value("ingest_store_commits_total") > 0);
        Assert.True(scrape.Value("ingest_store_journal_bytes_total") > 0);
        Assert.Equal(new FileInfo(Path.Combine(store.Directory, "data.ingest")).Length, scrape.Value("ingest_store_data_file_size_bytes"));
        Assert.InRange(scrape.Value("ingest_store_flush_backlog"), 0, double.MaxValue);
        Assert.InRange(scrape.Value("ingest_store_transactions_open"), 0, 64);
        Assert.Equal(store.LastEtag, scrape.Value("ingest_store_last_etag"));

        Assert.Equal(5, scrape.Value("ingest_index_documents_indexed_total", ("ingest_index", index)));
        Assert.Equal(5, scrape.Value("ingest_index_batch_size_sum", ("ingest_index", index)));
        Assert.Equal(0, scrape.Value("ingest_index_staleness_etags", ("ingest_index", index)));
        Assert.Equal(0, scrape.Value("ingest_index_staleness_seconds", ("ingest_index", index)));
        Assert.Equal(5, scrape.Value("ingest_index_entries", ("ingest_index", index)));
        Assert.Equal(0, scrape.Value("ingest_index_errored", ("ingest_index", index)));
    }
}
