namespace Ingest.Server.Sources;

/// <summary>A Kafka source's consumer group as the source sees it, for /stats and /health.</summary>
/// <param name="GroupId">The group the source joins (<c>&lt;GroupId&gt;.&lt;node&gt;</c> in cluster mode).</param>
/// <param name="ClientId">The source's consumer's client id.</param>
/// <param name="SharedGroup">Whether other members are expected (<c>SharedGroup: true</c>).</param>
/// <param name="MemberId">The source's own member id in the group, once it has one.</param>
/// <param name="OtherMembers">Members of the group that are not this source, as last described by the broker.</param>
/// <param name="Split">
/// Why the group is split, naming the other members, when it has any and is not shared: /health is 503 while this
/// is set. Null otherwise.
/// </param>
/// <param name="RetentionLosses">Partitions this store could not read from their start, since retention had removed records it never stored.</param>
public sealed record SourceGroupStatus(
    string GroupId,
    string ClientId,
    bool SharedGroup,
    string? MemberId,
    IReadOnlyList<GroupMemberStatus> OtherMembers,
    string? Split,
    IReadOnlyList<RetentionLoss> RetentionLosses);
