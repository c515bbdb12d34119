using System.Text;
using System.Text.Json;
using System.Text.RegularExpressions;
using Ingest.Console.Tests.Browser;
using Ingest.Testing.Brokers;
using Microsoft.Playwright;
using RabbitMQ.Client;
using static Microsoft.Playwright.Assertions;

namespace Ingest.Console.Tests.Etl;

/// <summary>
/// The ETL page on a real RabbitMQ destination: a task whose exchange does not exist yet shows its delivery error;
/// once it exists, the document the transform failed on is listed, a retry that fails again says why in its row,
/// and a retry after the document is fixed sends it.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class EtlPageTests
{
    private readonly ChromiumBrowser _browser;
    private readonly BrokerFixture _brokers;

    public EtlPageTests(ChromiumBrowser browser, BrokerFixture brokers)
    {
        _browser = browser;
        _brokers = brokers;
        SetDefaultExpectTimeout(30_000);
    }

    [Fact]
    public async Task A_failing_destination_shows_its_error_and_a_failed_document_is_retried_from_its_row()
    {
        var rabbit = await _brokers.GetRabbitMqAsync();
        var exchange = $"console-etl-{Guid.NewGuid():N}";
        var queue = $"{exchange}-queue";
        // A task defined over HTTP names its broker password by reference (docs/etl.md, "Broker passwords").
        var password = Uri.UnescapeDataString(rabbit.Uri.UserInfo.Split(':', 2)[1]);
        var user = rabbit.Uri.UserInfo.Split(':', 2)[0];
        await using var session = await ConsoleSession.StartAsync(_browser, false, $"--Ingest:Secrets:console_rabbit={password}");
        var uri = new UriBuilder(rabbit.Uri) { UserName = user, Password = "secret:console_rabbit" }.Uri.ToString();
        const string Task = "orders-out";
        var definition = JsonSerializer.Serialize(new
        {
            collections = new[] { "Orders" },
            rabbitMq = new { uri, exchange, routingKey = "orders" },
            script = "function transform(order, meta) { if (order.total < 0) throw new Error('negative total in ' + meta.id); return { body: order }; }",
        });
        using (var put = await session.Api.PutAsync(new Uri($"/etl/{Task}", UriKind.Relative), new StringContent(definition, Encoding.UTF8, "application/json")))
        {
            put.EnsureSuccessStatusCode();
        }

        await PutAsync(session, "orders/1", """{"total":5}""");
        await PutAsync(session, "orders/2", """{"total":-1}""");
        await session.LoginAsync("etl");
        var page = session.Page;

        var row = page.GetByRole(AriaRole.Table, new() { Name = "ETL tasks" }).GetByRole(AriaRole.Row).Filter(new() { HasText = Task });
        await Expect(row).ToContainTextAsync("Retrying");
        await Expect(row).ToContainTextAsync($"NOT_FOUND - no exchange '{exchange}'");

        // The exchange arrives: the task catches up and lists the document its transform failed on.
        var factory = new ConnectionFactory { Uri = rabbit.Uri };
        await using var connection = await factory.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(exchange, ExchangeType.Direct, durable: false, autoDelete: false);
        await channel.QueueDeclareAsync(queue, durable: false, exclusive: false, autoDelete: false);
        await channel.QueueBindAsync(queue, exchange, "orders");
        try
        {
            await row.GetByRole(AriaRole.Link, new() { Name = Task }).ClickAsync();
            await Expect(page.GetByRole(AriaRole.Heading, new() { Name = $"Task {Task}" })).ToBeVisibleAsync();
            var failed = page.GetByRole(AriaRole.Table, new() { Name = $"Failed documents of {Task}" }).GetByRole(AriaRole.Row).Filter(new() { HasText = "orders/2" });
            await Expect(failed).ToContainTextAsync("negative total in orders/2");
            await Expect(page.GetByRole(AriaRole.Region, new() { Name = $"Task {Task}" })).ToContainTextAsync("Running");
            await session.AssertAccessibleAsync();
            await session.ScreenshotAsync("etl");
        await session.AssertFitsPhoneAsync("etl-phone");

            // Still negative: the retry's 422 is shown in the document's row.
            await failed.GetByRole(AriaRole.Button, new() { Name = "Retry orders/2" }).ClickAsync();
            await Expect(failed.GetByRole(AriaRole.Alert)).ToContainTextAsync(new Regex("Transform still fails.*negative total", RegexOptions.Singleline));

            await PutAsync(session, "orders/2", """{"total":3}""");
            await failed.GetByRole(AriaRole.Button, new() { Name = "Retry orders/2" }).ClickAsync();
            await Expect(page.GetByRole(AriaRole.Status).Filter(new() { HasText = "Sent (1 message)" })).ToBeVisibleAsync();
            using var errors = JsonDocument.Parse(await session.Api.GetStringAsync(new Uri($"/etl/{Task}/errors", UriKind.Relative)));
            Assert.Equal(0, errors.RootElement.GetProperty("items").GetArrayLength());
            await Expect(failed).ToHaveCountAsync(0);

            // Reset asks first and then sends everything again.
            await page.GetByRole(AriaRole.Button, new() { Name = "Reset task" }).ClickAsync();
            await page.GetByRole(AriaRole.Dialog).GetByRole(AriaRole.Button, new() { Name = "Reset" }).ClickAsync();
            await Expect(page.GetByRole(AriaRole.Status).Filter(new() { HasText = "sends every change after etag 0 again" })).ToBeVisibleAsync();
        }
        finally
        {
            await channel.QueueDeleteAsync(queue);
            await channel.ExchangeDeleteAsync(exchange);
        }
    }

    private static async Task PutAsync(ConsoleSession session, string id, string json)
    {
        using var response = await session.Api.PutAsync(new Uri($"/docs/{id}?collection=Orders", UriKind.Relative), new StringContent(json, Encoding.UTF8, "application/json"));
        response.EnsureSuccessStatusCode();
    }
}
