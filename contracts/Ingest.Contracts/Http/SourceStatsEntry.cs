namespace Ingest.Contracts.Http;

/// <summary>A source in <c>/stats</c>.</summary>
/// <param name="Name">The source's name.</param>
/// <param name="Kind">"kafka" or "rabbitmq".</param>
/// <param name="Connected">Whether it has a working broker connection.</param>
/// <param name="Error">Its latest problem, null when all is well.</param>
/// <param name="Consumed">Messages received.</param>
/// <param name="Written">Puts and deletes made durable.</param>
/// <param name="DeadLetters">Messages stored as dead letters.</param>
/// <param name="Paused">Whether consuming is paused because the store is behind.</param>
/// <param name="Partitions">Per partition or queue.</param>
/// <param name="Batching">Batch and commit figures.</param>
public sealed record SourceStatsEntry(
    string Name,
    string Kind,
    bool Connected,
    string? Error,
    long Consumed,
    long Written,
    long DeadLetters,
    bool Paused,
    IReadOnlyList<PartitionStatsEntry> Partitions,
    BatchingStatsEntry Batching)
{
    /// <summary>A Kafka source's consumer group (<c>&lt;GroupId&gt;.&lt;node&gt;</c> in cluster mode); null for a queue.</summary>
    public string? Group { get; init; }

    /// <summary>A Kafka source's consumer's <c>client.id</c> (<c>ingest-&lt;node&gt;/&lt;source&gt;</c>, or <c>ingest-&lt;machine&gt;-&lt;pid&gt;/&lt;source&gt;</c> on one node).</summary>
    public string? ClientId { get; init; }

    /// <summary>Whether the source shares its group on purpose (<c>SharedGroup: true</c>).</summary>
    public bool SharedGroup { get; init; }

    /// <summary>Members of the group other than this source, as last described by the broker.</summary>
    public IReadOnlyList<GroupMemberEntry>? OtherMembers { get; init; }

    /// <summary>Records this store never read because the topic's retention had removed them (a rebuild that could not be complete); 0 when none.</summary>
    public long LostToRetention { get; init; }

    /// <summary>Per partition, where its log started and how many records were lost before it.</summary>
    public IReadOnlyList<RetentionLossEntry>? RetentionLosses { get; init; }
}
