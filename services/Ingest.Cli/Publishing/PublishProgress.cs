using System.Diagnostics;
using System.Globalization;

namespace Ingest.Cli.Publishing;

/// <summary>
/// How far <c>ingest publish</c> got: acknowledged documents and bytes, rates and an ETA. On an interactive terminal
/// a bar redrawn in place; otherwise (a pipe, a file, CI) a plain line every <see cref="Interval"/>. Publishers call
/// <see cref="Acknowledged"/> from any thread.
/// </summary>
internal sealed class PublishProgress : IAsyncDisposable
{
    private const int BarWidth = 30;

    private readonly TextWriter _output;
    private readonly bool _interactive;
    private readonly int _total;
    private readonly Stopwatch _clock = Stopwatch.StartNew();
    private readonly CancellationTokenSource _stop = new();
    private readonly Task _loop;
    private long _documents;
    private long _bytes;

    public PublishProgress(TextWriter output, bool interactive, int totalDocuments, TimeSpan interval)
    {
        ArgumentNullException.ThrowIfNull(output);
        _output = output;
        _interactive = interactive;
        _total = totalDocuments;
        Interval = interval;
        _loop = ReportPeriodicallyAsync();
    }

    public TimeSpan Interval { get; }

    /// <summary>Documents the broker acknowledged so far.</summary>
    public long Documents => Interlocked.Read(ref _documents);

    public void Acknowledged(int documents, long bytes)
    {
        Interlocked.Add(ref _documents, documents);
        Interlocked.Add(ref _bytes, bytes);
    }

    /// <summary>One report: <c>1200/5000 documents (24%), 2400 msg/s, 1.1 MB/s, ETA 2 s</c>, with a bar in front when interactive.</summary>
    public string Describe()
    {
        var documents = Documents;
        var seconds = Math.Max(_clock.Elapsed.TotalSeconds, 0.001);
        var perSecond = documents / seconds;
        var megabytesPerSecond = Interlocked.Read(ref _bytes) / seconds / (1024 * 1024);
        var fraction = _total == 0 ? 1 : Math.Min(1, (double)documents / _total);
        var eta = perSecond > 0 && documents < _total ? $"ETA {Math.Ceiling((_total - documents) / perSecond).ToString(CultureInfo.InvariantCulture)} s" : "ETA -";
        var text = string.Create(
            CultureInfo.InvariantCulture,
            $"{documents}/{_total} documents ({fraction * 100:0}%), {perSecond:0} msg/s, {megabytesPerSecond:0.0} MB/s, {eta}");
        if (!_interactive)
        {
            return text;
        }

        var filled = (int)Math.Round(fraction * BarWidth);
        return $"[{new string('#', filled)}{new string('-', BarWidth - filled)}] {text}";
    }

    /// <summary>Stops the periodic reports; the interactive bar is finished with a newline.</summary>
    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await _loop.ConfigureAwait(false);
        if (_interactive)
        {
            await _output.WriteLineAsync($"\r{Describe()}").ConfigureAwait(false);
        }

        _stop.Dispose();
    }

    private async Task ReportPeriodicallyAsync()
    {
        try
        {
            while (true)
            {
                await Task.Delay(Interval, _stop.Token).ConfigureAwait(false);
                if (_interactive)
                {
                    // Back to the line's start: the bar is redrawn in place.
                    await _output.WriteAsync($"\r{Describe()}").ConfigureAwait(false);
                }
                else
                {
                    await _output.WriteLineAsync($"progress: {Describe()}").ConfigureAwait(false);
                }
            }
        }
        catch (OperationCanceledException)
        {
        }
    }
}
