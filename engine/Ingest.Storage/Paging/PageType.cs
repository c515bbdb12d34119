namespace Ingest.Storage.Paging;

/// <summary>The byte at offset 12 of every page.</summary>
internal enum PageType : byte
{
    None = 0,
    State = 1,
    FreeSpaceBitmap = 2,
    TreeLeaf = 3,
    TreeBranch = 4,
    Overflow = 5,
    FixedLeaf = 6,
    FixedBranch = 7,
    PostingListLeaf = 8,
}
