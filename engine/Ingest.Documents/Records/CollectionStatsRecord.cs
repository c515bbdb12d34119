using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// Per-collection counters (value of docs/collections), followed by the collection's name in
/// the casing it was first written with.
/// <code>
///  0          8            16          24
///  | count    | body bytes | last etag | name UTF-8 ...
///  | i64      | i64        | i64       |
/// </code>
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct CollectionStatsRecord
{
    public const int Size = 24;

    public long Count;
    public long Bytes;
    public long LastEtag;
}
