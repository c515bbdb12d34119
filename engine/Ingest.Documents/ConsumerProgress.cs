namespace Ingest.Documents;

/// <summary>A registered consumer of the changes feed and the last etag it has processed.</summary>
/// <param name="Name">The consumer (an index or ETL task name).</param>
/// <param name="AcknowledgedEtag">Every change up to this etag has been processed.</param>
/// <param name="Updated">When progress was last reported (UTC).</param>
public sealed record ConsumerProgress(string Name, long AcknowledgedEtag, DateTime Updated);
