using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A collection's retention rule as the store last applied it (value of docs/expiration-rules), with how far
/// re-stamping the collection's stored documents under it has got.
/// <code>
///  0                 8                     16            18
///  +-----------------+---------------------+-------------+-------------+--------------+-----------------+
///  | keep ticks i64  | walked through etag | field bytes | name bytes  | field UTF-8  | collection name |
///  | (0 = removed)   | i64 (MaxValue=done) | u16         | u16         |              | UTF-8           |
///  +-----------------+---------------------+-------------+-------------+--------------+-----------------+
/// </code>
/// A removed rule stays (keep 0) until the walk has taken its expiry off every document, then goes.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct ExpirationRuleRecord
{
    public const int Size = 20;

    public const long Done = long.MaxValue;

    public long KeepTicks;
    public long WalkedThroughEtag;
    public ushort FieldLength;
    public ushort NameLength;
}
