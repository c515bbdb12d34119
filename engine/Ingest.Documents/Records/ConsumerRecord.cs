using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A registered consumer of the changes feed (an index, an ETL task), value of docs/consumers.
/// <code>
///  0                   8                   16
///  | acknowledged etag | registered ticks  | updated ticks |
///  | i64               | i64               | i64           |
/// </code>
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct ConsumerRecord
{
    public const int Size = 24;

    public long AcknowledgedEtag;
    public long RegisteredTicks;
    public long UpdatedTicks;
}
