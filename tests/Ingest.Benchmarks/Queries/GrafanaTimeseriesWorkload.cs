using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Ingest.Benchmarks.Ingestion;
using Ingest.Benchmarks.Reporting;
using Ingest.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// <c>grafana-timeseries</c>: a dashboard refresh as Grafana sends it, six panels over a 7-day range of the orders,
/// each a <c>POST /grafana/query</c> to a server started in-process, the six at once (as a browser sends a dashboard's
/// panels). One refresh is timed from the first request to the last answer read; median and p99 per refresh (the JSON's
/// row is <c>grafana-timeseries-6-threads</c>, its value the p99). The server runs over the data directory
/// <see cref="IngestQuerySystem"/> loaded; before timing, the workload defines the map-reduce indexes the panels need
/// (<see cref="Indexes"/>, with <c>PUT /indexes/{name}</c> as a user would) and logs what each took to build, so the
/// panels' <c>from Orders</c> queries are answered by combining those indexes' groups (Ingest.Query's Reduce/:
/// 5-minute buckets make up the 10-minute <c>$interval</c> and the 5-minute panel; the range's instant <c>$to</c>, which
/// <c>between</c> includes, is aggregated at query time). The refresh is warmed up until the JIT settles before timing.
/// </summary>
internal static class GrafanaTimeseriesWorkload
{
    public const string Name = "grafana-timeseries";

    /// <summary>The same refresh over the 10,000,000-order pass.</summary>
    public const string TenMillionName = "grafana-timeseries-10m";

    private const string Range = "where OrderedAt between $from and $to";
    private static readonly DateTime From = new(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc);
    private static readonly DateTime To = From.AddDays(7);

    /// <summary>The six panels: the orders dashboard's four, average order value and an order count.</summary>
    public static readonly string[] Panels =
    [
        $"from Orders {Range} group by time(OrderedAt, $interval), Status select count()",
        $"from Orders {Range} group by time(OrderedAt, '5m') select sum(Total) as Revenue",
        $"from Orders {Range} group by Company select sum(Total) as Revenue, count() as Orders order by sum(Total) desc limit 10",
        $"from Orders {Range} select facet(Status)",
        $"from Orders {Range} group by time(OrderedAt, $interval) select avg(Total) as AverageOrder",
        $"from Orders {Range} select count()",
    ];

    /// <summary>
    /// The map-reduce indexes the panels need, as <c>PUT /indexes/{name}</c> bodies: orders per 5 minutes and status
    /// (panels A, B, D, E, F: every Grafana interval that is a multiple of 5 minutes) and per hour and company (panel C).
    /// The pass also holds the map-reduce workloads' indexes; each query is answered by the index with the fewest groups
    /// whose groups combine into its own (Orders/RevenuePerHour's hours and statuses for the facet and the count).
    /// </summary>
    public static readonly (string Name, string Body)[] Indexes =
    [
        ("Orders/PerStatus5m", MapReduceBody("Status", "5m")),
        ("Orders/PerCompanyHour", MapReduceBody("Company", "1h")),
    ];

    /// <param name="name">The row's workload (<see cref="Name"/> or <see cref="TenMillionName"/>).</param>
    /// <param name="directory">A data directory with the orders loaded (<see cref="IngestQuerySystem"/>'s, closed).</param>
    /// <param name="timer">How long to time refreshes and how long a warm-up round is.</param>
    public static QueryMeasurement Run(string name, string directory, QueryTimer timer)
    {
        ArgumentNullException.ThrowIfNull(timer);
        var app = IngestHost.Build(["--urls", "http://127.0.0.1:0", $"--Ingest:DataDirectory={directory}", "--Logging:LogLevel:Default=Warning"]);
        try
        {
            IngestHost.StartAsync(app).GetAwaiter().GetResult();
            var address = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.First();
            using var client = new HttpClient { BaseAddress = new Uri(address), Timeout = TimeSpan.FromMinutes(15) };
            foreach (var (index, definition) in Indexes)
            {
                var build = Stopwatch.StartNew();
                Send(client, "/indexes/" + index, definition, HttpMethod.Put).GetAwaiter().GetResult();
                Send(client, "/queries", QueriesBody($"from index '{index}' limit 1")).GetAwaiter().GetResult(); // waits until it caught up
                Console.WriteLine($"[ingest] {name}: map-reduce index '{index}' defined and built in {build.Elapsed.TotalSeconds:N1} s");
            }

            var load = Stopwatch.StartNew();
            for (var panel = 0; panel < Panels.Length; panel++)
            {
                // Waits until the index that answers the panel has caught up (were none to cover it, an automatic one is built).
                using var answer = JsonDocument.Parse(Send(client, "/queries", QueriesBody(Panels[panel])).GetAwaiter().GetResult());
                Console.WriteLine($"[ingest] {name} panel {(char)('A' + panel)} is answered by index '{answer.RootElement.GetProperty("indexName").GetString()}'");
            }

            Console.WriteLine($"[ingest] {name}: the panels' index caught up in {load.Elapsed.TotalSeconds:N1} s");
            var body = RefreshBody();
            var warm = JitWarmup.Run(ProcessCpu.TieredCompilation, () =>
            {
                var round = Stopwatch.StartNew();
                do
                {
                    Refresh(client, body);
                }
                while (round.Elapsed < timer.WarmupRound);
            },
            QueryTimer.MinWarmupRounds);
            Console.WriteLine($"[ingest] {name}: {warm.Describe()}");
            var times = new List<double>();
            var gc = GcActivity.Start();
            var elapsed = Stopwatch.StartNew();
            while (elapsed.Elapsed < timer.Duration || times.Count < timer.MinQueries)
            {
                var started = Stopwatch.GetTimestamp();
                Refresh(client, body);
                times.Add(Stopwatch.GetElapsedTime(started).TotalMilliseconds);
            }

            Console.WriteLine($"[ingest] {name} during the refreshes: {gc.Describe(times.Count)}");

            PrintPanelBreakdown(name, client, body);
            times.Sort();
            var median = times[times.Count / 2];
            var p99 = times[Math.Min(times.Count - 1, (int)Math.Ceiling(0.99 * times.Count) - 1)];
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture,
                $"[ingest] {name,-23} 6 panels at once: median {median,9:N3} ms, p99 {p99,9:N3} ms per refresh ({times.Count:N0} refreshes)"));
            return new QueryMeasurement(name, QueriesCommand.Ingest, Panels.Length, median, p99, times.Count / elapsed.Elapsed.TotalSeconds, times.Count) { Warmup = warm };
        }
        finally
        {
            app.StopAsync().GetAwaiter().GetResult();
            ((IAsyncDisposable)app).DisposeAsync().AsTask().GetAwaiter().GetResult();
        }
    }

    /// <summary>
    /// Each panel alone (median and fastest of 31), so a slow refresh points at the panel that makes it slow; the
    /// fastest is what to compare on a shared machine, where the median moves with the load.
    /// </summary>
    private static void Refresh(HttpClient client, string[] body) =>
        Task.WhenAll(body.Select(b => Read(client, b))).GetAwaiter().GetResult();

    private static void PrintPanelBreakdown(string name, HttpClient client, string[] body)
    {
        var samples = new double[31];
        for (var panel = 0; panel < body.Length; panel++)
        {
            var allocated = GC.GetTotalAllocatedBytes(precise: true);
            for (var i = 0; i < samples.Length; i++)
            {
                var started = Stopwatch.GetTimestamp();
                Read(client, body[panel]).GetAwaiter().GetResult();
                samples[i] = Stopwatch.GetElapsedTime(started).TotalMilliseconds;
            }

            // Client and server alike (they share the process); the requests are sent one at a time.
            var perRequest = (GC.GetTotalAllocatedBytes(precise: true) - allocated) / 1024.0 / samples.Length;
            Array.Sort(samples);
            Console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"[ingest] {name} panel {(char)('A' + panel)} alone: median {samples[samples.Length / 2],8:N3} ms, fastest {samples[0],8:N3} ms, {perRequest,6:N0} KiB allocated per request  {Panels[panel]}"));
        }
    }

    /// <summary>
    /// A panel's request, its answer read to the end and dropped, as Grafana's server (another process) would read it:
    /// the client shares the server's process and heap here, so a copy of each answer as a string (UTF-16, twice its
    /// bytes, on the large object heap for panel A) would be collections charged to the server.
    /// </summary>
    private static async Task Read(HttpClient client, string json)
    {
        using var content = new StringContent(json, Encoding.UTF8);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        using var request = new HttpRequestMessage(HttpMethod.Post, new Uri("/grafana/query", UriKind.Relative)) { Content = content };
        using var response = await client.SendAsync(request, HttpCompletionOption.ResponseHeadersRead).ConfigureAwait(false);
        if (!response.IsSuccessStatusCode)
        {
            throw new InvalidOperationException($"/grafana/query answered {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync().ConfigureAwait(false)}");
        }

        await using var answer = await response.Content.ReadAsStreamAsync().ConfigureAwait(false);
        await answer.CopyToAsync(Stream.Null).ConfigureAwait(false);
    }

    private static async Task<string> Send(HttpClient client, string path, string json, HttpMethod? method = null)
    {
        using var content = new StringContent(json, Encoding.UTF8);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        using var request = new HttpRequestMessage(method ?? HttpMethod.Post, new Uri(path, UriKind.Relative)) { Content = content };
        using var response = await client.SendAsync(request).ConfigureAwait(false);
        var text = await response.Content.ReadAsStringAsync().ConfigureAwait(false);
        return response.IsSuccessStatusCode ? text : throw new InvalidOperationException($"{path} answered {(int)response.StatusCode}: {text}");
    }

    /// <summary>A map-reduce index of the orders grouped by OrderedAt's <paramref name="interval"/> buckets and <paramref name="key"/>, keeping a count and the sum of Total.</summary>
    private static string MapReduceBody(string key, string interval) => JsonSerializer.Serialize(new Dictionary<string, object>
    {
        ["collections"] = new[] { "Orders" },
        ["fields"] = new[]
        {
            new Dictionary<string, string> { ["name"] = key, ["path"] = key, ["type"] = "keyword" },
            new Dictionary<string, string> { ["name"] = "Total", ["path"] = "Total", ["type"] = "number" },
            new Dictionary<string, string> { ["name"] = "OrderedAt", ["path"] = "OrderedAt", ["type"] = "datetime" },
        },
        ["reduce"] = new Dictionary<string, object>
        {
            ["groupBy"] = new[] { new Dictionary<string, string> { ["name"] = "Time", ["field"] = "OrderedAt", ["interval"] = interval }, new Dictionary<string, string> { ["field"] = key } },
            ["aggregates"] = new[]
            {
                new Dictionary<string, string> { ["name"] = "Orders", ["function"] = "count" },
                new Dictionary<string, string> { ["name"] = "Revenue", ["function"] = "sum", ["field"] = "Total" },
            },
        },
    });

    private static string QueriesBody(string panel) => JsonSerializer.Serialize(new Dictionary<string, object>
    {
        ["query"] = panel,
        ["parameters"] = new Dictionary<string, string> { ["from"] = Iso(From), ["to"] = Iso(To), ["interval"] = "15m" },
        ["waitForNonStale"] = "10m",
    });

    /// <summary>One body per panel, as the plugin sends a panel's request (maxDataPoints of a wide panel, Grafana's 10m interval).</summary>
    private static string[] RefreshBody() =>
    [
        .. Panels.Select((panel, i) => JsonSerializer.Serialize(new Dictionary<string, object>
        {
            ["range"] = new Dictionary<string, string> { ["from"] = Iso(From), ["to"] = Iso(To) },
            ["interval"] = "10m",
            ["intervalMs"] = 600_000,
            ["maxDataPoints"] = 1_200,
            ["targets"] = new[] { new Dictionary<string, object> { ["refId"] = ((char)('A' + i)).ToString(), ["target"] = panel, ["payload"] = new Dictionary<string, object>() } },
            ["filters"] = Array.Empty<object>(),
        })),
    ];

    private static string Iso(DateTime time) => time.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);

    /// <summary>What the GC did during the timed refreshes (client and server share the process), to tell GC pauses from other causes of a slow p99.</summary>
    private readonly record struct GcActivity(long Allocated, int Gen0, int Gen1, int Gen2, TimeSpan Paused)
    {
        public static GcActivity Start() => new(GC.GetTotalAllocatedBytes(), GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2), GC.GetTotalPauseDuration());

        public string Describe(int refreshes) => string.Create(
            CultureInfo.InvariantCulture,
            $"{(GC.GetTotalAllocatedBytes() - Allocated) / 1024.0 / refreshes:N0} KiB allocated per refresh, collections gen0 {GC.CollectionCount(0) - Gen0}, gen1 {GC.CollectionCount(1) - Gen1}, gen2 {GC.CollectionCount(2) - Gen2}, {(GC.GetTotalPauseDuration() - Paused).TotalMilliseconds:N1} ms paused in {refreshes} refreshes");
    }
}
