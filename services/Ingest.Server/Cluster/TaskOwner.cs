namespace Ingest.Server.Cluster;

/// <summary>Who owns a task (<c>etl.&lt;name&gt;</c> or <c>source.&lt;name&gt;</c>): the owner's node as far as known (null: none, or not known), and whether that is this node.</summary>
internal sealed record TaskOwner(string Task, string? Node, bool IsThisNode);
