using System.Globalization;
using System.Security.Cryptography;
using System.Text;
using Ingest.Documents;
using Ingest.Server.Cluster;

namespace Ingest.Server.Sources.DeadLetters;

/// <summary>
/// A dead letter as every node of a cluster can name it. Its id is local (each store numbers its own dead letters), but
/// the message it holds came from one place: a Kafka source's topic, partition and offset, which every node consumes
/// alike, or the cluster topic's, which every node applies alike. So the identity is that origin, partition and offset,
/// plus the SHA-256 of the stored bytes: a RabbitMQ delivery tag (a dead letter made by a node's own RabbitMQ consumer)
/// repeats across channels and nodes, and the bytes tell such messages apart. Dead letters with the same identity hold
/// the same message (a Kafka source reset that consumed it twice), so an operation on one applies to all of them.
/// </summary>
internal readonly record struct DeadLetterIdentity(string Origin, int Partition, long Offset, string RawSha256)
{
    public const string OriginHeader = "ingest-dead-letter-origin";
    public const string PartitionHeader = "ingest-dead-letter-partition";
    public const string OffsetHeader = "ingest-dead-letter-offset";
    public const string RawHeader = "ingest-dead-letter-sha256";

    // Dead letters are read a page at a time when looking for one by identity: there is no index by position.
    private const int ScanPage = 256;

    public static DeadLetterIdentity Of(DeadLetter deadLetter)
    {
        ArgumentNullException.ThrowIfNull(deadLetter);
        return new(deadLetter.Position.Source, deadLetter.Position.Partition, deadLetter.Position.NextOffset, Hash(deadLetter.Raw.Span));
    }

    /// <summary>The cluster record's key: one dead letter's operations share a partition and stay in order.</summary>
    public string Key => string.Create(CultureInfo.InvariantCulture, $"{Origin}@{Partition}:{Offset}");

    public void AddTo(List<KeyValuePair<string, byte[]>> headers)
    {
        ArgumentNullException.ThrowIfNull(headers);
        headers.Add(new(OriginHeader, Encoding.UTF8.GetBytes(Origin)));
        headers.Add(new(PartitionHeader, Encoding.UTF8.GetBytes(Partition.ToString(CultureInfo.InvariantCulture))));
        headers.Add(new(OffsetHeader, Encoding.UTF8.GetBytes(Offset.ToString(CultureInfo.InvariantCulture))));
        headers.Add(new(RawHeader, Encoding.UTF8.GetBytes(RawSha256)));
    }

    public static bool TryRead(ClusterRecord record, out DeadLetterIdentity identity)
    {
        var origin = ClusterRecordHeaders.Text(record, OriginHeader);
        var partition = ClusterRecordHeaders.Text(record, PartitionHeader);
        var offset = ClusterRecordHeaders.Text(record, OffsetHeader);
        var raw = ClusterRecordHeaders.Text(record, RawHeader);
        if (origin is null || raw is null
            || !int.TryParse(partition, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var p)
            || !long.TryParse(offset, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var o))
        {
            identity = default;
            return false;
        }

        identity = new(origin, p, o, raw);
        return true;
    }

    /// <summary>The ids of this store's dead letters with this identity (none when this node never had it, or no longer has it).</summary>
    public List<long> FindIn(DocumentStore store)
    {
        ArgumentNullException.ThrowIfNull(store);
        var found = new List<long>();
        long after = 0;
        while (true)
        {
            var page = store.GetDeadLetters(after, ScanPage);
            foreach (var deadLetter in page)
            {
                var position = deadLetter.Position;
                if (position.NextOffset == Offset && position.Partition == Partition && string.Equals(position.Source, Origin, StringComparison.Ordinal)
                    && string.Equals(Hash(deadLetter.Raw.Span), RawSha256, StringComparison.Ordinal))
                {
                    found.Add(deadLetter.Id);
                }
            }

            if (page.Count < ScanPage)
            {
                return found;
            }

            after = page[^1].Id;
        }
    }

    private static string Hash(ReadOnlySpan<byte> raw) => Convert.ToHexStringLower(SHA256.HashData(raw));
}
