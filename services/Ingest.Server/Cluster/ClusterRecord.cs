namespace Ingest.Server.Cluster;

/// <summary>
/// One record of the cluster topic. <paramref name="Kind"/> (header <c>ingest-kind</c>) says who applies it:
/// <c>doc</c> (a document put or, with an empty body, a delete, applied in a store batch with the position),
/// <c>source</c> (a message forwarded by a RabbitMQ source's owner, mapped by that source on every node),
/// <c>etl-progress</c>, or an admin change (<c>index</c>, <c>etl-task</c>, <c>grafana-query</c>, <c>dead-letter</c>,
/// <c>source-reset</c>...). <paramref name="Key"/> is the Kafka key: one document's (or one object's) writes
/// share a partition and stay in order.
/// </summary>
internal sealed record ClusterRecord(string Kind, string Key, ReadOnlyMemory<byte> Body, IReadOnlyList<KeyValuePair<string, byte[]>> Headers);
