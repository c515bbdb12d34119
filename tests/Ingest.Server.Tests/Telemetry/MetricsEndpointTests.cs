using System.Net;
using System.Text.RegularExpressions;
using Ingest.Server.Telemetry;
using Ingest.Testing;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Telemetry;

public sealed class MetricsEndpointTests
{
    [Fact]
    public async Task Metrics_answers_in_the_Prometheus_text_format_with_the_Ingest_meters_store_counters()
    {
        await using var server = await StartAsync();
        using (var put = await server.PutAsync("/docs/orders/1?collection=Orders", "{\"v\":1}"))
        {
            Assert.Equal(HttpStatusCode.Created, put.StatusCode);
        }

        using var response = await server.Client.GetAsync(Relative(TelemetryServiceCollectionExtensions.MetricsPath));
        var text = await response.Content.ReadAsStringAsync();

        Assert.True(response.StatusCode == HttpStatusCode.OK, $"{response.StatusCode}: {text}");
        Assert.Equal("text/plain", response.Content.Headers.ContentType?.MediaType);
        Assert.Contains("# TYPE ingest_store_commits_total counter", text, StringComparison.Ordinal);
        Assert.Contains("# HELP ingest_store_commits_total Transactions the document store committed", text, StringComparison.Ordinal);
        Assert.Matches(new Regex(@"(?m)^ingest_store_commits_total(\{[^}]*\})? \d+"), text);
        Assert.Contains("# TYPE ingest_store_journal_syncs_total counter", text, StringComparison.Ordinal);
    }

    [Fact]
    public async Task With_an_api_key_metrics_are_scraped_without_it_and_documents_still_require_it()
    {
        await using var server = await StartAsync("--Ingest:ApiKey=0123456789abcdef-test-key");

        using var metrics = await server.Client.GetAsync(Relative(TelemetryServiceCollectionExtensions.MetricsPath));
        Assert.Equal(HttpStatusCode.OK, metrics.StatusCode);
        Assert.Contains("ingest_store_commits_total", await metrics.Content.ReadAsStringAsync(), StringComparison.Ordinal);

        using var documents = await server.Client.GetAsync(Relative("/docs/orders/1"));
        Assert.Equal(HttpStatusCode.Unauthorized, documents.StatusCode);
    }

    [Fact]
    public async Task With_the_standard_OTEL_settings_metrics_are_also_pushed_over_OTLP()
    {
        // An OTLP/HTTP receiver of our own on loopback; only the request path matters here.
        var port = LocalPorts.Unused();
        using var receiver = new HttpListener();
        receiver.Prefixes.Add($"http://127.0.0.1:{port}/");
        receiver.Start();
        var metricsPosted = ReceiveAsync(receiver, "/v1/metrics");

        await using var server = await StartAsync(
            $"--{TelemetryServiceCollectionExtensions.OtlpEndpointVariable}=http://127.0.0.1:{port}",
            "--OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf",
            "--OTEL_METRIC_EXPORT_INTERVAL=200");

        var finished = await Task.WhenAny(metricsPosted, Task.Delay(TimeSpan.FromSeconds(30)));
        Assert.True(finished == metricsPosted, "no OTLP metrics export reached the receiver within 30 s");
        Assert.True((await metricsPosted).Length > 0, "the OTLP export was empty");
    }

    private static async Task<byte[]> ReceiveAsync(HttpListener receiver, string path)
    {
        while (true)
        {
            var context = await receiver.GetContextAsync();
            using var body = new MemoryStream();
            await context.Request.InputStream.CopyToAsync(body);
            context.Response.StatusCode = 200;
            context.Response.Close();
            if (context.Request.Url?.AbsolutePath == path)
            {
                return body.ToArray();
            }
        }
    }
}
