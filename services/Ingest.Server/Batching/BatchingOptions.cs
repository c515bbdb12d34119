namespace Ingest.Server.Batching;

/// <summary>
/// Nagle-style batching limits, bound from <c>Ingest:Batching</c>. A batch closes at whichever
/// limit it reaches first; under load batches fill by size, a trickle waits at most <see cref="MaxDelay"/>.
/// </summary>
public sealed class BatchingOptions
{
    public const string SectionName = "Ingest:Batching";

    /// <summary>Items per batch.</summary>
    public int MaxMessages { get; set; } = 1_000;

    /// <summary>Bytes per batch; a single larger item forms a batch on its own.</summary>
    public long MaxBytes { get; set; } = 4L * 1024 * 1024;

    /// <summary>Longest time a batch stays open after its first item arrived.</summary>
    public TimeSpan MaxDelay { get; set; } = TimeSpan.FromMilliseconds(50);

    /// <summary>
    /// Closed batches that may wait for the consumer before producers are made to wait.
    /// This is what pauses the sources when the store falls behind.
    /// </summary>
    public int MaxPendingBatches { get; set; } = 2;

    /// <summary>Every problem with these settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (MaxMessages <= 0)
        {
            errors.Add($"{SectionName}:{nameof(MaxMessages)} must be > 0 (was {MaxMessages}).");
        }

        if (MaxBytes <= 0)
        {
            errors.Add($"{SectionName}:{nameof(MaxBytes)} must be > 0 (was {MaxBytes}).");
        }

        if (MaxDelay <= TimeSpan.Zero)
        {
            errors.Add($"{SectionName}:{nameof(MaxDelay)} must be > 0 (was {MaxDelay}).");
        }
        else if (MaxDelay.TotalMilliseconds > uint.MaxValue - 1)
        {
            // ITimer.Change rejects longer due times.
            errors.Add($"{SectionName}:{nameof(MaxDelay)} must be at most {TimeSpan.FromMilliseconds(uint.MaxValue - 1)} (was {MaxDelay}).");
        }

        if (MaxPendingBatches <= 0)
        {
            errors.Add($"{SectionName}:{nameof(MaxPendingBatches)} must be > 0 (was {MaxPendingBatches}).");
        }

        return errors;
    }

    /// <summary>Throws an <see cref="ArgumentException"/> listing every problem, if there is one.</summary>
    public void ThrowIfInvalid()
    {
        var errors = Validate();
        if (errors.Count > 0)
        {
            throw new ArgumentException(string.Join(" ", errors));
        }
    }
}
