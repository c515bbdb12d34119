using System.Globalization;
using System.Net;
using System.Text;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;

namespace Ingest.Server.Tests.Grafana;

/// <summary>Requests shaped as the simPod JSON data source sends them, and reading their answers.</summary>
internal static class GrafanaTestKit
{
    /// <summary>QueryTestKit's orders: order i is at this time plus i minutes.</summary>
    public static readonly DateTime OrdersStart = new(2026, 11, 1, 0, 0, 0, DateTimeKind.Utc);

    public static string Iso(DateTime time) => time.ToString("yyyy-MM-dd'T'HH:mm:ss.fff'Z'", CultureInfo.InvariantCulture);

    /// <summary>
    /// A <c>POST /query</c> body as the plugin's frontend builds it (DataQueryRequest after processTargets), with the
    /// fields Ingest ignores (app, requestId, scopedVars, rangeRaw...) included.
    /// </summary>
    public static string QueryBody(DateTime from, DateTime to, long intervalMs, int maxDataPoints, IEnumerable<object> targets, IEnumerable<object>? filters = null, string filtersProperty = "filters")
    {
        var interval = intervalMs % 60_000 == 0 ? $"{intervalMs / 60_000}m" : $"{intervalMs / 1000}s";
        var body = new Dictionary<string, object?>
        {
            ["app"] = "dashboard",
            ["requestId"] = "Q101",
            ["timezone"] = "browser",
            ["panelId"] = 2,
            ["dashboardUID"] = "ingest-orders",
            ["range"] = new { from = Iso(from), to = Iso(to), raw = new { from = "now-6h", to = "now" } },
            ["rangeRaw"] = new { from = "now-6h", to = "now" },
            ["interval"] = interval,
            ["intervalMs"] = intervalMs,
            ["maxDataPoints"] = maxDataPoints,
            ["targets"] = targets.ToList(),
            ["scopedVars"] = new Dictionary<string, object>
            {
                ["__interval"] = new { text = interval, value = interval },
                ["__interval_ms"] = new { text = intervalMs.ToString(CultureInfo.InvariantCulture), value = intervalMs },
            },
            [filtersProperty] = (filters ?? []).ToList(),
            ["startTime"] = 1_795_000_000_000L,
        };
        return JsonSerializer.Serialize(body);
    }

    /// <summary>A target as the plugin sends it: payload already parsed to an object, the data source reference attached.</summary>
    public static object Target(string refId, string target, object? payload = null) => new Dictionary<string, object?>
    {
        ["refId"] = refId,
        ["target"] = target,
        ["payload"] = payload ?? new Dictionary<string, object>(),
        ["editorMode"] = "code",
        ["datasource"] = new { type = "simpod-json-datasource", uid = "ingest" },
    };

    public static object Filter(string key, string op, string value) => new { key, @operator = op, value, condition = "" };

    /// <summary>POSTs <paramref name="json"/> to <c>/grafana/{path}</c> with the headers Grafana's proxy sends.</summary>
    public static async Task<HttpResponseMessage> PostAsync(HttpClient client, string path, string json, string? apiKey = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Post, ApiTestServer.Relative($"/grafana/{path}")) { Content = ApiTestServer.Json(Encoding.UTF8.GetBytes(json)) };
        request.Headers.Add("Accept", "application/json, text/plain, */*");
        request.Headers.Add("X-Grafana-Org-Id", "1");
        if (apiKey is not null)
        {
            request.Headers.Add("X-Api-Key", apiKey);
        }

        return await client.SendAsync(request);
    }

    public static async Task<JsonElement> PostOkAsync(HttpClient client, string path, string json)
    {
        using var response = await PostAsync(client, path, json);
        return await ApiTestServer.ReadJsonAsync(response, HttpStatusCode.OK);
    }

    /// <summary>A series' datapoints by epoch milliseconds.</summary>
    public static Dictionary<long, double?> Points(JsonElement series) =>
        series.GetProperty("datapoints").EnumerateArray().ToDictionary(
            p => p[1].GetInt64(),
            p => p[0].ValueKind == JsonValueKind.Null ? (double?)null : p[0].GetDouble());

    public static long EpochMs(DateTime time) => new DateTimeOffset(time).ToUnixTimeMilliseconds();
}
