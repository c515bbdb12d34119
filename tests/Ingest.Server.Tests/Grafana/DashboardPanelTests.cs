using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Tests.Hosting.Http;
using Xunit.Abstractions;
using static Ingest.Server.Tests.Grafana.GrafanaTestKit;

namespace Ingest.Server.Tests.Grafana;

/// <summary>
/// Loads every dashboard under infra/grafana/dashboards and sends each panel's request as its data source would to a
/// live server holding orders shaped like the benchmark's (Company, Status, Total, OrderedAt in the dashboard's range).
/// JSON data source panels go to <c>/grafana/query</c>; Infinity panels to their URL with their method and body, and
/// their root selector and columns must be found in the answer. Prometheus panels (the metrics dashboard) are skipped
/// by data source type: no Prometheus runs here. The server gets the indexes docker-compose.yml configures
/// (<c>Ingest__Indexes__*</c>: the map-reduce index the orders dashboard reads), built before the panels run.
/// </summary>
public sealed class DashboardPanelTests(ITestOutputHelper output)
{
    private const string JsonDataSource = "simpod-json-datasource";
    private const string InfinityDataSource = "yesoreyeram-infinity-datasource";
    private const string PrometheusDataSource = "prometheus";
    private static readonly string[] Statuses = ["pending", "paid", "shipped", "delivered", "cancelled"];

    [Fact]
    public async Task Every_panel_of_every_dashboard_answers_without_error_against_a_live_server()
    {
        var indexes = ComposeIndexSettings();
        Assert.Contains("--Ingest:Indexes:0:Name=Orders/RevenuePerHour", indexes);
        await using var api = await ApiTestServer.StartAsync([.. indexes]);
        var now = DateTime.UtcNow;
        await PutBenchmarkOrdersAsync(api.Store, now, 600);
        foreach (var name in indexes.Where(static a => a.Contains(":Name=", StringComparison.Ordinal) && a.Count(static c => c == ':') == 3))
        {
            await Queries.QueryTestKit.QueryAsync(api.Client, $"from index '{name[(name.IndexOf('=', StringComparison.Ordinal) + 1)..]}' limit 1");
        }

        var files = Directory.GetFiles(Path.Combine(RepositoryRoot(), "infra", "grafana", "dashboards"), "*.json").Order(StringComparer.Ordinal).ToList();
        Assert.Contains(files, f => f.EndsWith("ingest-orders.json", StringComparison.Ordinal));
        Assert.Contains(files, f => f.EndsWith("ingest-operations.json", StringComparison.Ordinal));

        var ran = new Dictionary<string, int> { [JsonDataSource] = 0, [InfinityDataSource] = 0, [PrometheusDataSource] = 0 };
        foreach (var file in files)
        {
            using var dashboard = JsonDocument.Parse(await File.ReadAllTextAsync(file));
            var root = dashboard.RootElement;
            var (from, to) = (Relative(root.GetProperty("time").GetProperty("from").GetString()!, now), Relative(root.GetProperty("time").GetProperty("to").GetString()!, now));
            foreach (var (panel, target) in Targets(root.GetProperty("panels")))
            {
                var where = $"{Path.GetFileName(file)}: panel '{panel.GetProperty("title").GetString()}' {target.GetProperty("refId").GetString()}";
                var type = DataSourceType(panel, target);
                switch (type)
                {
                    case JsonDataSource:
                        await RunJsonPanelAsync(api, panel, target, from, to, where);
                        break;
                    case InfinityDataSource:
                        await RunInfinityPanelAsync(api, target, from, to, where);
                        break;
                    case PrometheusDataSource:
                        output.WriteLine($"skipped (Prometheus data source): {where}");
                        break;
                    default:
                        Assert.Fail($"{where}: data source type '{type}' is not one this test can run");
                        break;
                }

                ran[type!]++;
                output.WriteLine($"ran ({type}): {where}");
            }
        }

        Assert.True(ran[JsonDataSource] >= 4, $"JSON data source panels run: {ran[JsonDataSource]}");
        Assert.True(ran[InfinityDataSource] >= 7, $"Infinity panels run: {ran[InfinityDataSource]}");
    }

    private static async Task RunJsonPanelAsync(ApiTestServer api, JsonElement panel, JsonElement target, DateTime from, DateTime to, string where)
    {
        var maxDataPoints = panel.TryGetProperty("maxDataPoints", out var max) ? max.GetInt32() : 1000;
        var intervalMs = Math.Max(1000, (long)(to - from).TotalMilliseconds / maxDataPoints);
        var sent = new Dictionary<string, object?>
        {
            ["refId"] = target.GetProperty("refId").GetString(),
            ["target"] = target.GetProperty("target").GetString(),
            ["payload"] = target.TryGetProperty("payload", out var payload) ? payload : new Dictionary<string, object>(),
            ["datasource"] = target.GetProperty("datasource"),
        };

        using var response = await PostAsync(api.Client, "query", QueryBody(from, to, intervalMs, maxDataPoints, [sent]));
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"{where}: {response.StatusCode} {text}");
        using var answer = JsonDocument.Parse(text);
        var frames = answer.RootElement.EnumerateArray().ToList();
        Assert.True(frames.Count > 0, $"{where}: no series or table: {text}");
        Assert.All(frames, f => Assert.True(
            (f.TryGetProperty("datapoints", out var points) ? points : f.GetProperty("rows")).GetArrayLength() > 0, $"{where}: empty frame {f}"));
    }

    private static async Task RunInfinityPanelAsync(ApiTestServer api, JsonElement target, DateTime from, DateTime to, string where)
    {
        var options = target.GetProperty("url_options");
        var method = new HttpMethod(options.GetProperty("method").GetString()!);
        using var request = new HttpRequestMessage(method, ApiTestServer.Relative(target.GetProperty("url").GetString()!));
        request.Headers.Add("X-Api-Key", "unused-without-a-configured-key");
        if (method == HttpMethod.Post)
        {
            var body = options.GetProperty("data").GetString()!
                .Replace("${__from:date:iso}", Iso(from), StringComparison.Ordinal)
                .Replace("${__to:date:iso}", Iso(to), StringComparison.Ordinal);
            request.Content = ApiTestServer.Json(Encoding.UTF8.GetBytes(body));
        }

        using var response = await api.Client.SendAsync(request);
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(response.StatusCode == HttpStatusCode.OK, $"{where}: {response.StatusCode} {text}");
        using var answer = JsonDocument.Parse(text);
        var selector = target.GetProperty("root_selector").GetString() ?? string.Empty;
        var rows = Select(answer.RootElement, selector);
        Assert.True(rows is not null, $"{where}: root selector '{selector}' finds nothing in {text}");
        var list = rows.Value.ValueKind == JsonValueKind.Array ? rows.Value.EnumerateArray().ToList() : [rows.Value];
        if (selector.Length == 0)
        {
            Assert.True(list.Count > 0, $"{where}: no rows: {text}");
        }

        foreach (var column in target.GetProperty("columns").EnumerateArray())
        {
            var path = column.GetProperty("selector").GetString()!;
            Assert.All(list, row => Assert.True(Select(row, path) is not null, $"{where}: column '{path}' is not in {row}"));
        }
    }

    /// <summary>A root or column selector as Infinity's backend parser reads a plain path: dotted properties, arrays mapped and flattened.</summary>
    private static JsonElement? Select(JsonElement element, string path)
    {
        if (path.Length == 0)
        {
            return element;
        }

        var current = new List<JsonElement> { element };
        var many = false;
        foreach (var name in path.Split('.'))
        {
            var next = new List<JsonElement>();
            foreach (var node in current)
            {
                var items = node.ValueKind == JsonValueKind.Array ? [.. node.EnumerateArray()] : new List<JsonElement> { node };
                many |= node.ValueKind == JsonValueKind.Array;
                foreach (var item in items)
                {
                    if (item.ValueKind != JsonValueKind.Object || !item.TryGetProperty(name, out var value))
                    {
                        return null;
                    }

                    next.Add(value);
                }
            }

            current = next;
        }

        if (!many)
        {
            return current[0];
        }

        var flat = new List<JsonElement>();
        foreach (var node in current)
        {
            flat.AddRange(node.ValueKind == JsonValueKind.Array ? node.EnumerateArray() : [node]);
        }

        return JsonSerializer.SerializeToElement(flat);
    }

    private static IEnumerable<(JsonElement Panel, JsonElement Target)> Targets(JsonElement panels)
    {
        foreach (var panel in panels.EnumerateArray())
        {
            if (panel.TryGetProperty("targets", out var targets))
            {
                foreach (var target in targets.EnumerateArray())
                {
                    yield return (panel, target);
                }
            }

            if (panel.TryGetProperty("panels", out var nested))
            {
                foreach (var inner in Targets(nested))
                {
                    yield return inner;
                }
            }
        }
    }

    private static string? DataSourceType(JsonElement panel, JsonElement target) =>
        (target.TryGetProperty("datasource", out var ds) && ds.ValueKind == JsonValueKind.Object && ds.TryGetProperty("type", out var type)) ||
        (panel.TryGetProperty("datasource", out ds) && ds.ValueKind == JsonValueKind.Object && ds.TryGetProperty("type", out type))
            ? type.GetString()
            : null;

    /// <summary>Grafana's <c>now</c>, <c>now-6h</c>, <c>now-30m</c>, <c>now-7d</c>.</summary>
    private static DateTime Relative(string text, DateTime now)
    {
        if (text == "now")
        {
            return now;
        }

        Assert.StartsWith("now-", text, StringComparison.Ordinal);
        var amount = int.Parse(text.AsSpan(4, text.Length - 5), CultureInfo.InvariantCulture);
        return text[^1] switch
        {
            'm' => now.AddMinutes(-amount),
            'h' => now.AddHours(-amount),
            'd' => now.AddDays(-amount),
            _ => throw new InvalidOperationException($"unexpected time '{text}'"),
        };
    }

    /// <summary>Orders shaped like tests/Ingest.Benchmarks' OrderDataset, one every 30 seconds back from <paramref name="now"/>.</summary>
    private static async Task PutBenchmarkOrdersAsync(DocumentStore store, DateTime now, int count)
    {
        var batch = new WriteBatch();
        for (var i = 0; i < count; i++)
        {
            var orderedAt = now.AddSeconds(-30 * (i + 1)).ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);
            var json = string.Create(CultureInfo.InvariantCulture,
                $$"""{"Id":"orders/{{i}}-A","Company":"companies/{{(i * 7 % 91) + 1}}-A","Employee":"employees/{{(i % 9) + 1}}-A","OrderedAt":"{{orderedAt}}","Freight":{{i % 200}}.5,"Status":"{{Statuses[i % Statuses.Length]}}","ShipTo":{"City":"Berlin","Country":"Germany"},"Lines":[{"Product":"products/1-A","Quantity":{{(i % 9) + 1}}}],"Total":{{(i * 37 % 1000) + 0.25}}}""");
            batch.Put($"orders/{i}-A", "Orders", json);
        }

        await store.WriteAsync(batch);
    }

    /// <summary>The ingest service's <c>Ingest__Indexes__...</c> environment in docker-compose.yml, as command-line settings (<c>--Ingest:Indexes:0:Name=...</c>).</summary>
    private static List<string> ComposeIndexSettings()
    {
        var compose = File.ReadAllLines(Path.Combine(RepositoryRoot(), "docker-compose.yml"));
        var settings = new List<string>();
        foreach (var line in compose)
        {
            var text = line.Trim();
            var colon = text.IndexOf(':', StringComparison.Ordinal);
            if (text.StartsWith("Ingest__Indexes__", StringComparison.Ordinal) && colon > 0)
            {
                settings.Add($"--{text[..colon].Replace("__", ":", StringComparison.Ordinal)}={text[(colon + 1)..].Trim().Trim('"')}");
            }
        }

        return settings;
    }

    private static string RepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Ingest.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No Ingest.sln above {AppContext.BaseDirectory}; the dashboard test reads infra/grafana/dashboards from a checkout.");
    }
}
