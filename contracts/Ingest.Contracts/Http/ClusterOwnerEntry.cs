namespace Ingest.Contracts.Http;

/// <summary>A task's owner: the member of its group <c>ingest-owner.&lt;task&gt;</c> assigned the lease topic's partition.</summary>
/// <param name="Task">The task (<c>etl.&lt;name&gt;</c> or <c>source.&lt;name&gt;</c>).</param>
/// <param name="Group">Its owner group.</param>
/// <param name="Node">The owner's node (from its client id); null when nobody holds the lease.</param>
/// <param name="ClientId">The owner's client id; null when nobody holds the lease.</param>
public sealed record ClusterOwnerEntry(string Task, string Group, string? Node, string? ClientId);
