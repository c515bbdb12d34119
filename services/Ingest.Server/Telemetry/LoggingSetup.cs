using Microsoft.Extensions.Logging.Console;

namespace Ingest.Server.Telemetry;

/// <summary>
/// Console logs as text (the default) or, with <c>Ingest:Logging:Format=json</c>, one JSON object per line with
/// UTC timestamps and the scopes, which carry the current span's <c>TraceId</c> and <c>SpanId</c>.
/// </summary>
public static class LoggingSetup
{
    public const string FormatKey = "Ingest:Logging:Format";

    public static ILoggingBuilder AddIngestConsoleFormat(this ILoggingBuilder logging, IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(logging);
        ArgumentNullException.ThrowIfNull(configuration);
        // The host's default already tags scopes with the span; said here because the JSON lines rely on it.
        logging.Configure(static o => o.ActivityTrackingOptions = ActivityTrackingOptions.TraceId | ActivityTrackingOptions.SpanId | ActivityTrackingOptions.ParentId);
        var format = configuration[FormatKey];
        if (string.IsNullOrEmpty(format) || string.Equals(format, "text", StringComparison.OrdinalIgnoreCase))
        {
            return logging;
        }

        if (!string.Equals(format, "json", StringComparison.OrdinalIgnoreCase))
        {
            throw new InvalidOperationException($"{FormatKey} must be 'text' or 'json', not '{format}'.");
        }

        logging.AddJsonConsole(static o =>
        {
            o.IncludeScopes = true;
            o.UseUtcTimestamp = true;
            o.TimestampFormat = "yyyy-MM-ddTHH:mm:ss.fffZ";
        });
        logging.Services.Configure<ConsoleLoggerOptions>(static o => o.FormatterName = ConsoleFormatterNames.Json);
        return logging;
    }
}
