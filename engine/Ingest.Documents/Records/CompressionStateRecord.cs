using System.Runtime.InteropServices;

namespace Ingest.Documents.Records;

/// <summary>
/// A collection's compression state (value of docs/compression, keyed by the folded collection name),
/// changed in the same transaction as the puts and deletes it counts.
/// <code>
///  0            4          8              16            24             32              40                48
///  | dictionary | reserved | stored body  | window puts | window JSON  | window stored | trained ratio   |
///  | id u32     | u32      | bytes i64    | i64         | bytes i64    | bytes i64     | ppm i64         |
/// </code>
/// The dictionary is the one new puts use (0: none yet). Stored body bytes are the collection's bodies
/// as they lie on disk (compressed or not; the JSON size is <see cref="CollectionStatsRecord.Bytes"/>).
/// The window counts the puts since the last training or check; the trained ratio is stored/JSON bytes in
/// parts per million that the dictionary reached on its own training sample.
/// </summary>
[StructLayout(LayoutKind.Sequential, Pack = 1)]
internal struct CompressionStateRecord
{
    public const int Size = 48;

    public uint DictionaryId;
    public uint Reserved;
    public long StoredBytes;
    public long WindowPuts;
    public long WindowJsonBytes;
    public long WindowStoredBytes;
    public long TrainedRatioPpm;
}
