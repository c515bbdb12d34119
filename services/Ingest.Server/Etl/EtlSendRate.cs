namespace Ingest.Server.Etl;

/// <summary>
/// Messages per second over the last <see cref="Window"/>: each acknowledged batch is remembered
/// with its time, and older ones fall out, so a task that stopped sending shows 0 within the window.
/// </summary>
internal sealed class EtlSendRate(TimeProvider time)
{
    public static readonly TimeSpan Window = TimeSpan.FromSeconds(10);

    private readonly Queue<(DateTimeOffset At, long Messages)> _batches = new();
    private readonly DateTimeOffset _started = time.GetUtcNow();

    public void Record(long messages)
    {
        lock (_batches)
        {
            _batches.Enqueue((time.GetUtcNow(), messages));
            Prune(time.GetUtcNow());
        }
    }

    public double PerSecond()
    {
        var now = time.GetUtcNow();
        lock (_batches)
        {
            Prune(now);
            long total = 0;
            foreach (var (_, messages) in _batches)
            {
                total += messages;
            }

            // A task younger than the window is measured over its own life, not diluted by time it did not exist.
            var span = Math.Min(Window.TotalSeconds, (now - _started).TotalSeconds);
            return total == 0 || span <= 0 ? 0 : total / Math.Max(span, 1);
        }
    }

    private void Prune(DateTimeOffset now)
    {
        while (_batches.Count > 0 && now - _batches.Peek().At > Window)
        {
            _batches.Dequeue();
        }
    }
}
