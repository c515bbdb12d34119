namespace Ingest.Server.Sources;

/// <summary>One member of a consumer group, as the broker describes it.</summary>
/// <param name="MemberId">The member id the group coordinator gave it.</param>
/// <param name="ClientId">Its <c>client.id</c> (<c>ingest-&lt;node&gt;/...</c> for an Ingest node).</param>
/// <param name="Host">The address it connected from.</param>
/// <param name="Partitions">The partitions assigned to it, <c>topic[partition]</c>.</param>
public sealed record GroupMemberStatus(string MemberId, string ClientId, string Host, IReadOnlyList<string> Partitions);
