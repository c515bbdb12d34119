namespace Ingest.Server.Expiration;

/// <summary>Dead letters' retention (<c>Ingest:Expiration:DeadLetters</c>).</summary>
public sealed class DeadLetterRetentionOptions
{
    /// <summary>How long dead letters are kept after they were stored; absent = kept until deleted or replayed.</summary>
    public TimeSpan? Keep { get; set; }
}
