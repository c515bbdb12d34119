using System.Runtime.InteropServices;

namespace Ingest.Storage.Paging;

/// <summary>One page version held in scratch memory: page (or run) number, where it is, and either the version it was copied from (while a transaction modifies it) or the transaction that committed it.</summary>
/// <remarks>
/// <see cref="Base"/> and <see cref="TxId"/> share their 8 bytes: a dirty page needs the first until its
/// journal record is written, a committed one only the second. This keeps the entry at 32 bytes, two per
/// cache line in the write transaction's open-addressing table.
/// </remarks>
[StructLayout(LayoutKind.Explicit)]
internal struct PageVersion
{
    [FieldOffset(0)]
    public long Page;

    /// <summary>The transaction that committed this version (set at commit, after the journal record is written).</summary>
    [FieldOffset(8)]
    public long TxId;

    /// <summary>
    /// While dirty: the committed version this copy was made from (0 for a new page or one rewritten
    /// whole), which the journal diffs it against.
    /// </summary>
    [FieldOffset(8)]
    public nint Base;

    [FieldOffset(16)]
    public nint Pointer;

    [FieldOffset(24)]
    public int Pages;
}
