namespace Ingest.Indexing.Terms;

/// <summary>
/// A bool is one byte, false before true.
/// <code>
/// +------+
/// | 0x00 |  false
/// | 0x01 |  true
/// +------+
/// </code>
/// </summary>
internal static class BoolTerm
{
    public const int Size = 1;

    public static byte Encode(bool value) => value ? (byte)1 : (byte)0;
}
