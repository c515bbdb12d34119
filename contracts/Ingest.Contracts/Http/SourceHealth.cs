namespace Ingest.Contracts.Http;

/// <summary>A source's connection in <c>/health</c>.</summary>
/// <param name="Name">The source's name.</param>
/// <param name="Kind">"kafka" or "rabbitmq".</param>
/// <param name="Connected">Whether it has a working broker connection.</param>
/// <param name="Error">Its latest problem, null when all is well.</param>
public sealed record SourceHealth(string Name, string Kind, bool Connected, string? Error)
{
    /// <summary>A Kafka source's consumer group (<c>&lt;GroupId&gt;.&lt;node&gt;</c> in cluster mode); null for a queue.</summary>
    public string? Group { get; init; }

    /// <summary>
    /// Members of the group other than this source. Unless the source says <c>SharedGroup: true</c>, any makes the
    /// service unhealthy (the group is split: each member reads only part of the topic), and <see cref="Error"/> names them.
    /// </summary>
    public IReadOnlyList<GroupMemberEntry>? OtherMembers { get; init; }

    /// <summary>Something to know that does not make the service unhealthy (records lost to retention before this store read them); null when none.</summary>
    public string? Warning { get; init; }
}
