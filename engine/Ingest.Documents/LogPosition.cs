namespace Ingest.Documents;

/// <summary>
/// The place in a replicated log (a Kafka topic) of the record that produced a document version or a delete:
/// the same on every node that applies that record, unlike an etag, which is local to one store.
/// </summary>
/// <param name="Topic">The topic's name.</param>
/// <param name="Partition">The partition.</param>
/// <param name="Offset">The record's offset in that partition.</param>
public readonly record struct LogPosition(string Topic, int Partition, long Offset)
{
    /// <summary>The text form <c>{topic}-{partition}-{offset}</c> (the CloudEvents id's suffix).</summary>
    public override string ToString() => $"{Topic}-{Partition}-{Offset}";
}
