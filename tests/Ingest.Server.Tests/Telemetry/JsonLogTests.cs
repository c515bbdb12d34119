using System.Diagnostics;
using System.Text.Json;
using Ingest.Server.Telemetry;
using Ingest.Server.Tests.Hosting;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Logging.Console;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Tests.Telemetry;

public sealed class JsonLogTests : IDisposable
{
    private readonly TestDirectory _data = new();

    public void Dispose() => _data.Dispose();

    [Fact]
    public async Task With_the_json_format_each_console_line_is_a_json_object_carrying_the_trace_and_span_ids()
    {
        await using var server = await RunningServer.StartAsync(_data.Path, $"--{LoggingSetup.FormatKey}=json");
        var services = server.Services;
        Assert.Equal(ConsoleFormatterNames.Json, services.GetRequiredService<IOptionsMonitor<ConsoleLoggerOptions>>().CurrentValue.FormatterName);

        // The host's own formatter and scope provider, writing one entry while a span is current.
        var formatter = services.GetServices<ConsoleFormatter>().Single(f => f.Name == ConsoleFormatterNames.Json);
        // The scopes as a logger factory set up the same way hands them to its providers.
        var configuration = new ConfigurationBuilder()
            .AddInMemoryCollection([new(LoggingSetup.FormatKey, "json")]).Build();
        var capture = new ScopeCapture();
        using var factory = LoggerFactory.Create(logging => logging.AddIngestConsoleFormat(configuration).AddProvider(capture));
        var scopes = capture.Scopes ?? throw new InvalidOperationException("the factory gave no scope provider");
        using var activity = new Activity("test").SetIdFormat(ActivityIdFormat.W3C).Start();
        using var writer = new StringWriter();
        formatter.Write(new LogEntry<string>(LogLevel.Information, "Ingest.Test", new EventId(1), "source connected", null, static (s, _) => s), scopes, writer);

        var line = writer.ToString().TrimEnd();
        Assert.DoesNotContain('\n', line);
        using var json = JsonDocument.Parse(line);
        Assert.Equal("source connected", json.RootElement.GetProperty("Message").GetString());
        Assert.EndsWith("Z", json.RootElement.GetProperty("Timestamp").GetString(), StringComparison.Ordinal);
        var scope = json.RootElement.GetProperty("Scopes").EnumerateArray().Single(s => s.TryGetProperty("TraceId", out _));
        Assert.Equal(activity.TraceId.ToHexString(), scope.GetProperty("TraceId").GetString());
        Assert.Equal(activity.SpanId.ToHexString(), scope.GetProperty("SpanId").GetString());
    }

    [Fact]
    public async Task An_unknown_log_format_stops_start_up_naming_the_setting()
    {
        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunningServer.StartAsync(_data.Path, $"--{LoggingSetup.FormatKey}=xml"));
        Assert.Contains(LoggingSetup.FormatKey, error.Message, StringComparison.Ordinal);
    }

    private sealed class ScopeCapture : ILoggerProvider, ISupportExternalScope
    {
        public IExternalScopeProvider? Scopes { get; private set; }

        public void SetScopeProvider(IExternalScopeProvider scopeProvider) => Scopes = scopeProvider;

        public ILogger CreateLogger(string categoryName) => NullLogger.Instance;

        public void Dispose()
        {
        }
    }
}
