using System.Runtime.InteropServices;

namespace Ingest.Storage.PostingLists;

/// <summary>One 16-byte directory entry of a leaf; the layout is drawn on <see cref="PostingListLeaf"/>.</summary>
[StructLayout(LayoutKind.Explicit, Size = PostingListLeaf.BlockEntrySize)]
internal struct PostingListBlockEntry
{
    [FieldOffset(0)]
    public long FirstId;

    [FieldOffset(8)]
    public uint MinDelta;

    [FieldOffset(12)]
    public ushort DataOffset;

    [FieldOffset(14)]
    public byte BitWidth;

    [FieldOffset(15)]
    public byte CountMinusOne;

    public readonly int IdCount => CountMinusOne + 1;
}
