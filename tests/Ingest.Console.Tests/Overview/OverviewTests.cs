using System.Globalization;
using System.Text;
using Confluent.Kafka;
using Confluent.Kafka.Admin;
using Ingest.Console.Tests.Browser;
using Ingest.Testing.Brokers;
using Microsoft.Playwright;

namespace Ingest.Console.Tests.Overview;

[Collection(ConsoleCollection.Name)]
public sealed class OverviewTests
{
    private readonly ChromiumBrowser _browser;
    private readonly BrokerFixture _brokers;

    public OverviewTests(ChromiumBrowser browser, BrokerFixture brokers)
    {
        _browser = browser;
        _brokers = brokers;
    }

    [Fact]
    public async Task The_ingestion_rate_moves_while_a_topic_is_published_and_health_names_every_reason_it_is_not_200()
    {
        var kafka = await _brokers.GetKafkaAsync();
        var topic = $"console-overview-{Guid.NewGuid():N}";
        using (var admin = new AdminClientBuilder(new AdminClientConfig { BootstrapServers = kafka.BootstrapServers }).Build())
        {
            await admin.CreateTopicsAsync([new TopicSpecification { Name = topic, NumPartitions = 2, ReplicationFactor = 1 }]);
        }

        await using var session = await ConsoleSession.StartAsync(
            _browser,
            false,
            "--Ingest:Sources:Kafka:0:Name=orders",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId=console-{Guid.NewGuid():N}",
            "--Ingest:Sources:Kafka:0:Collection=Orders",
            // A queue on a port where no broker listens: a reason /health answers 503, which the page must name.
            "--Ingest:Sources:RabbitMq:0:Name=events",
            "--Ingest:Sources:RabbitMq:0:Uri=amqp://guest:guest@127.0.0.1:1/",
            $"--Ingest:Sources:RabbitMq:0:Queues:0=console-events-{Guid.NewGuid():N}");
        // An index and an ETL task (to a topic of its own on the same broker), for their rows.
        await PutJsonAsync(session, "/indexes/Orders/ByTotal", """{"collections":["Orders"],"fields":[{"name":"Total","path":"Total","type":"number"}]}""");
        await PutJsonAsync(
            session,
            "/etl/console-out",
            $$"""{"collections":["Orders"],"kafka":{"bootstrapServers":"{{kafka.BootstrapServers}}","topic":"console-etl-{{Guid.NewGuid():N}}"},"script":"function transform(order, meta) { return { key: meta.id, body: order }; }"}""");
        await session.LoginAsync();
        var page = session.Page;
        await page.GetByRole(AriaRole.Table, new() { Name = "Indexes" }).GetByRole(AriaRole.Link, new() { Name = "Orders/ByTotal" }).WaitForAsync();
        await page.GetByRole(AriaRole.Table, new() { Name = "ETL tasks" }).GetByRole(AriaRole.Row).Filter(new() { HasText = "console-out" }).Filter(new() { HasText = "running" }).WaitForAsync();

        await page.GetByText("Unhealthy (GET /health answers 503)").WaitForAsync();
        await page.GetByRole(AriaRole.List, new() { Name = "Why it is not healthy" }).GetByText("Source events (rabbitmq) is not connected").WaitForAsync();

        using var publishing = new CancellationTokenSource();
        var publisher = PublishUntilCancelledAsync(kafka.BootstrapServers, topic, publishing.Token);
        try
        {
            // The rate is computed in the page from successive polls of /stats: it moves above zero while messages arrive.
            await WaitForRateAsync(page, "orders", static rate => rate > 0);
            // The chart draws a line (two points or more) for the source.
            await page.WaitForFunctionAsync("() => [...document.querySelectorAll('figure.chart svg path')].some((p) => (p.getAttribute('d') ?? '').includes('L'))");
            await page.GetByRole(AriaRole.Row).Filter(new() { HasText = topic }).First.WaitForAsync();
            await page.GetByRole(AriaRole.Link, new() { Name = "Orders", Exact = true }).WaitForAsync();
            await session.AssertAccessibleAsync();
            await session.ScreenshotAsync("overview");
        }
        finally
        {
            await publishing.CancelAsync();
            await publisher;
        }

        // And back to zero once publishing stops and the source has caught up.
        await WaitForRateAsync(page, "orders", static rate => rate == 0);

        // A poll does not take the keyboard away: the focused link is focused again in the new figures.
        var orders = page.GetByRole(AriaRole.Link, new() { Name = "Orders", Exact = true });
        await orders.FocusAsync();
        var updated = await page.Locator("p.updated").TextContentAsync();
        await page.WaitForFunctionAsync("(before) => document.querySelector('p.updated').textContent !== before", updated);
        Assert.True(await orders.EvaluateAsync<bool>("a => document.activeElement === a"), "The Orders link keeps the focus across a poll.");
        var lagCells = page.GetByRole(AriaRole.Row).Filter(new() { HasText = topic });
        Assert.Equal(2, await lagCells.CountAsync());
    }

    private static async Task PutJsonAsync(ConsoleSession session, string path, string json)
    {
        using var content = new StringContent(json, Encoding.UTF8, "application/json");
        using var response = await session.Api.PutAsync(new Uri(path, UriKind.Relative), content);
        Assert.True(response.IsSuccessStatusCode, $"PUT {path} answered {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}");
    }

    private static async Task WaitForRateAsync(IPage page, string source, Func<double, bool> condition)
    {
        // Waits (no deadline beyond the test's own) for the source's Written/s cell to satisfy condition.
        var deadline = DateTime.UtcNow.AddSeconds(90);
        string? last = null;
        while (DateTime.UtcNow < deadline)
        {
            last = await page.EvaluateAsync<string?>(
                """
                (source) => {
                  const table = [...document.querySelectorAll('table')].find((t) => t.caption?.textContent === 'Sources');
                  const row = table && [...table.tBodies[0].rows].find((r) => r.cells[0].textContent === source);
                  return row ? row.cells[row.cells.length - 1].textContent : null;
                }
                """,
                source);
            if (last is not null && last.EndsWith("/s", StringComparison.Ordinal)
                && double.TryParse(last[..^2].Replace(",", string.Empty, StringComparison.Ordinal), NumberStyles.Float, CultureInfo.InvariantCulture, out var rate)
                && condition(rate))
            {
                return;
            }

            await Task.Delay(250);
        }

        Assert.Fail($"The Written/s of source '{source}' never reached the expected value; it last showed '{last}'.");
    }

    private static async Task PublishUntilCancelledAsync(string bootstrap, string topic, CancellationToken ct)
    {
        using var producer = new ProducerBuilder<string, string>(new ProducerConfig { BootstrapServers = bootstrap, LingerMs = 5, Acks = Acks.All })
            .SetLogHandler(static (_, _) => { })
            .Build();
        var i = 0;
        while (!ct.IsCancellationRequested)
        {
            for (var n = 0; n < 20; n++, i++)
            {
                var body = new StringBuilder().Append("{\"Total\":").Append(i % 500).Append(",\"Customer\":\"c").Append(i % 7).Append("\"}").ToString();
                producer.Produce(topic, new Message<string, string> { Key = $"orders/{i}", Value = body });
            }

            try
            {
                await Task.Delay(100, ct);
            }
            catch (OperationCanceledException)
            {
                break;
            }
        }

        producer.Flush(TimeSpan.FromSeconds(30));
    }
}
