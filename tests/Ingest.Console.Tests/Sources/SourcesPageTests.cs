using System.Net;
using System.Text.Json;
using System.Text.RegularExpressions;
using Ingest.Console.Tests.Browser;
using Ingest.Testing.Brokers;
using Microsoft.Playwright;
using static Microsoft.Playwright.Assertions;

namespace Ingest.Console.Tests.Sources;

/// <summary>
/// The sources page on a real Kafka source: its figures, a dead letter decoded, replayed with a corrected body (the
/// document stored, the dead letter gone), another deleted, and a reset chosen from the form.
/// </summary>
[Collection(ConsoleCollection.Name)]
public sealed class SourcesPageTests
{
    private readonly ChromiumBrowser _browser;
    private readonly BrokerFixture _brokers;

    public SourcesPageTests(ChromiumBrowser browser, BrokerFixture brokers)
    {
        _browser = browser;
        _brokers = brokers;
        SetDefaultExpectTimeout(30_000);
    }

    [Fact]
    public async Task A_dead_letter_is_decoded_replayed_with_a_corrected_body_another_deleted_and_the_source_reset_from_the_form()
    {
        var kafka = await _brokers.GetKafkaAsync();
        var topic = await KafkaTopic.CreateAsync(kafka.BootstrapServers, "console-sources");
        await topic.ProduceAsync(
            ("orders/1", """{"customer":"Ada","total":42.5}""", []),
            ("orders/2", "oops, not json", [("x-trace", "trace-7")]),
            ("orders/3", "{\"customer\":", []));
        await using var session = await ConsoleSession.StartAsync(
            _browser,
            false,
            "--Ingest:Sources:Kafka:0:Name=orders",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic.Name}",
            $"--Ingest:Sources:Kafka:0:GroupId=console-{Guid.NewGuid():N}",
            "--Ingest:Sources:Kafka:0:Collection=Orders");
        await session.LoginAsync("sources");
        var page = session.Page;

        var source = page.GetByRole(AriaRole.Table, new() { Name = "Sources" }).GetByRole(AriaRole.Row).Filter(new() { HasText = "orders" });
        await Expect(source).ToContainTextAsync("connected");
        await Expect(source.GetByRole(AriaRole.Cell).Nth(3)).ToHaveTextAsync("3");
        await Expect(source.GetByRole(AriaRole.Cell).Nth(5)).ToHaveTextAsync("2");
        await Expect(page.GetByRole(AriaRole.Table, new() { Name = "Partitions and queues" })).ToContainTextAsync(topic.Name);

        // The first dead letter, decoded: reason, key, header, body as text.
        var ids = await DeadLetterIdsAsync(session);
        Assert.Equal(2, ids.Count);
        await page.GetByRole(AriaRole.Button, new() { Name = $"Open dead letter #{ids[0]}", Exact = true }).ClickAsync();
        var opened = page.GetByRole(AriaRole.Region, new() { Name = $"Dead letter #{ids[0]}" });
        await Expect(opened.GetByRole(AriaRole.Heading, new() { Name = $"Dead letter #{ids[0]}" })).ToBeFocusedAsync();
        await Expect(opened).ToContainTextAsync("not JSON");
        await Expect(opened).ToContainTextAsync("orders/2");
        await Expect(opened.GetByLabel($"Body of dead letter {ids[0]}")).ToHaveTextAsync("oops, not json");
        await Expect(opened.GetByRole(AriaRole.Table, new() { Name = $"Headers of dead letter {ids[0]}" })).ToContainTextAsync("trace-7");
        await session.AssertAccessibleAsync();
        await session.ScreenshotAsync("sources");
        await session.AssertFitsPhoneAsync("sources-phone");

        // A body that still does not map: the server's 422 beside the form, the dead letter kept.
        var body = opened.GetByLabel("Body to replay");
        await body.FillAsync("still not json");
        await opened.GetByRole(AriaRole.Button, new() { Name = "Replay" }).ClickAsync();
        await Expect(opened.GetByRole(AriaRole.Alert)).ToContainTextAsync("Message still does not map to a document");
        await Expect(body).ToBeFocusedAsync();

        await body.FillAsync("""{"customer":"Lin","total":1}""");
        await opened.GetByRole(AriaRole.Button, new() { Name = "Replay" }).ClickAsync();
        var replayed = page.GetByRole(AriaRole.Status).Filter(new() { HasText = $"Dead letter #{ids[0]} replayed: stored document orders/2 in Orders" });
        await Expect(replayed).ToBeVisibleAsync();
        await Expect(replayed).ToBeFocusedAsync();
        using (var document = await session.Api.GetAsync(new Uri("/docs/orders/2", UriKind.Relative)))
        {
            Assert.Equal(HttpStatusCode.OK, document.StatusCode);
            Assert.Equal("Lin", JsonDocument.Parse(await document.Content.ReadAsStringAsync()).RootElement.GetProperty("customer").GetString());
        }

        await AssertGoneAsync(session, ids[0]);
        await Expect(page.GetByRole(AriaRole.Button, new() { Name = $"Open dead letter #{ids[0]}", Exact = true })).ToHaveCountAsync(0);

        // The other one is deleted, after a confirmation.
        await page.GetByRole(AriaRole.Button, new() { Name = $"Open dead letter #{ids[1]}", Exact = true }).ClickAsync();
        await page.GetByRole(AriaRole.Region, new() { Name = $"Dead letter #{ids[1]}" }).GetByRole(AriaRole.Button, new() { Name = "Delete" }).ClickAsync();
        await page.GetByRole(AriaRole.Dialog).GetByRole(AriaRole.Button, new() { Name = "Delete" }).ClickAsync();
        await Expect(page.GetByRole(AriaRole.Status).Filter(new() { HasText = $"Dead letter #{ids[1]} deleted" })).ToBeVisibleAsync();
        await AssertGoneAsync(session, ids[1]);
        await Expect(page.GetByText("No dead letters")).ToBeVisibleAsync();

        // A reset: offsets the form cannot read are said beside the field, one the server refuses under the form,
        // and a good one moves the source back (the two bad messages are dead letters again).
        var form = page.GetByRole(AriaRole.Form, new() { Name = "Reset a source" });
        await form.GetByLabel("Source").SelectOptionAsync("orders");
        await form.GetByRole(AriaRole.Radio, new() { Name = "Offsets" }).CheckAsync();
        var offsets = form.GetByRole(AriaRole.Textbox, new() { Name = "Offsets" });
        await offsets.FillAsync("somewhere");
        await form.GetByRole(AriaRole.Button, new() { Name = "Reset source" }).ClickAsync();
        await Expect(offsets).ToHaveAccessibleDescriptionAsync(new Regex("\"somewhere\" is not topic:partition=offset"));

        await offsets.FillAsync($"{topic.Name}:3=0");
        await form.GetByRole(AriaRole.Button, new() { Name = "Reset source" }).ClickAsync();
        await page.GetByRole(AriaRole.Dialog).GetByRole(AriaRole.Button, new() { Name = "Reset" }).ClickAsync();
        await Expect(form.GetByRole(AriaRole.Alert)).ToContainTextAsync("there is no partition 3");

        await offsets.FillAsync($"{topic.Name}:0=1");
        await form.GetByRole(AriaRole.Button, new() { Name = "Reset source" }).ClickAsync();
        await page.GetByRole(AriaRole.Dialog).GetByRole(AriaRole.Button, new() { Name = "Reset" }).ClickAsync();
        await Expect(form.GetByRole(AriaRole.Status)).ToContainTextAsync("Source \"orders\" reset to offsets");
        var moved = form.GetByRole(AriaRole.Table, new() { Name = "Partitions of orders moved" }).GetByRole(AriaRole.Row).Filter(new() { HasText = topic.Name });
        await Expect(moved.GetByRole(AriaRole.Cell).Nth(2)).ToHaveTextAsync("3");
        await Expect(moved.GetByRole(AriaRole.Cell).Nth(3)).ToHaveTextAsync("1");
        await Expect(page.GetByRole(AriaRole.Table, new() { Name = "Dead letters" }).GetByRole(AriaRole.Row)).ToHaveCountAsync(3);
        Assert.Equal(2, (await DeadLetterIdsAsync(session)).Count);
    }

    private static async Task<List<long>> DeadLetterIdsAsync(ConsoleSession session)
    {
        for (var attempt = 0; ; attempt++)
        {
            using var document = JsonDocument.Parse(await session.Api.GetStringAsync(new Uri("/dead-letters", UriKind.Relative)));
            var ids = document.RootElement.GetProperty("items").EnumerateArray().Select(static item => item.GetProperty("id").GetInt64()).ToList();
            if (ids.Count >= 2 || attempt == 300)
            {
                return ids;
            }

            await Task.Delay(100);
        }
    }

    private static async Task AssertGoneAsync(ConsoleSession session, long id)
    {
        using var response = await session.Api.GetAsync(new Uri($"/dead-letters/{id}", UriKind.Relative));
        Assert.Equal(HttpStatusCode.NotFound, response.StatusCode);
    }
}
