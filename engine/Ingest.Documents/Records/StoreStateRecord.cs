using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// The store's counters, the one value of docs/state (key 0), written raw once per transaction.
/// <code>
///  0        8          16          24           32               40                 48         56             64
///  | format | last etag | documents | tombstones | document bytes | last dead letter | dead      | tombstones    |
///  | i64    | i64       | i64       | i64        | i64            | id i64           | letters   | purged to i64 |
/// </code>
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct StoreStateRecord
{
    public const long CurrentFormat = 1;
    public const int Size = 64;

    public long Format;
    public long LastEtag;
    public long DocumentCount;
    public long TombstoneCount;
    public long DocumentBytes;
    public long LastDeadLetterId;
    public long DeadLetterCount;
    public long TombstonesPurgedThrough;
}
