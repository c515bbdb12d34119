using Microsoft.Extensions.Logging;

namespace Ingest.Server.Tests.Sources;

/// <summary>A logger provider that keeps every line written (level and formatted message), for tests of what gets logged.</summary>
internal sealed class RecordedLogs : ILoggerProvider
{
    private readonly List<(LogLevel Level, string Message)> _lines = [];
    private readonly List<string> _timeline = [];

    /// <summary>A factory whose loggers all write here.</summary>
    public ILoggerFactory CreateFactory(LogLevel minimum = LogLevel.Information) => LoggerFactory.Create(builder => builder.SetMinimumLevel(minimum).AddProvider(this));

    /// <summary>Every line with its time and level, oldest first: what a failing test prints.</summary>
    public string Dump()
    {
        lock (_lines)
        {
            return string.Join('\n', _timeline);
        }
    }

    public List<(LogLevel Level, string Message)> Matching(string fragment)
    {
        lock (_lines)
        {
            return _lines.Where(l => l.Message.Contains(fragment, StringComparison.Ordinal)).ToList();
        }
    }

    public ILogger CreateLogger(string categoryName) => new Recorder(this);

    public void Dispose()
    {
    }

    private sealed class Recorder(RecordedLogs logs) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => true;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            lock (logs._lines)
            {
                var message = formatter(state, exception);
                logs._lines.Add((logLevel, message));
                logs._timeline.Add($"{DateTime.UtcNow:HH:mm:ss.fff} {logLevel} {message}{(exception is null ? "" : " | " + exception.GetType().Name + ": " + exception.Message)}");
            }
        }
    }
}
