namespace Ingest.Server.Expiration;

/// <summary>
/// The expiration task and the configured retention rules, bound from <c>Ingest:Expiration</c>. Rules set over
/// HTTP (<c>PUT /expiration/collections/{name}</c>) override these per collection.
/// </summary>
public sealed class ExpirationOptions
{
    public const string SectionName = "Ingest:Expiration";

    /// <summary>The largest batch: one batch is one transaction, and ingestion waits behind it.</summary>
    public const int MaxBatchSize = 1_000_000;

    /// <summary>How often the task looks for due documents (it also runs at once when a rule changes).</summary>
    public TimeSpan Interval { get; set; } = TimeSpan.FromMinutes(1);

    /// <summary>Documents deleted (or re-stamped after a rule change) per transaction.</summary>
    public int BatchSize { get; set; } = 10_000;

    /// <summary>
    /// While other writes go on, the share of time the task may spend deleting (it waits after each batch to keep to
    /// it); on an idle store it deletes flat out. More than 0, at most 1 (1: never waits).
    /// </summary>
    public double WriterShare { get; set; } = 0.1;

    /// <summary>Retention per collection, by collection name.</summary>
    public Dictionary<string, CollectionRetentionOptions> Collections { get; } = new(StringComparer.OrdinalIgnoreCase);

    /// <summary>Retention of dead letters.</summary>
    public DeadLetterRetentionOptions DeadLetters { get; } = new();

    /// <summary>Every problem with these settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (Interval <= TimeSpan.Zero || Interval.TotalMilliseconds > uint.MaxValue - 1)
        {
            errors.Add($"{SectionName}:{nameof(Interval)} must be > 0 and at most {TimeSpan.FromMilliseconds(uint.MaxValue - 1)} (was {Interval}).");
        }

        if (BatchSize is <= 0 or > MaxBatchSize)
        {
            errors.Add($"{SectionName}:{nameof(BatchSize)} must be between 1 and {MaxBatchSize} (was {BatchSize}).");
        }

        if (WriterShare is not (> 0 and <= 1))
        {
            errors.Add($"{SectionName}:{nameof(WriterShare)} must be more than 0 and at most 1 (was {WriterShare}).");
        }

        if (DeadLetters.Keep is { } keep && keep <= TimeSpan.Zero)
        {
            errors.Add($"{SectionName}:{nameof(DeadLetters)}:{nameof(DeadLetterRetentionOptions.Keep)} must be > 0, or absent to keep dead letters (was {keep}).");
        }

        foreach (var (name, rule) in Collections)
        {
            var prefix = $"{SectionName}:{nameof(Collections)}:{name}";
            if (RetentionRuleCheck.Check(name, rule.Keep, rule.Field) is { } problem)
            {
                errors.Add($"{prefix}: {problem}");
            }
        }

        return errors;
    }
}
