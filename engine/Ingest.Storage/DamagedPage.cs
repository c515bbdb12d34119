namespace Ingest.Storage;

/// <summary>One page <see cref="StorageEnvironment.Verify"/> found damaged, with what lives there.</summary>
/// <param name="Page">The page number.</param>
/// <param name="FilePath">The data file.</param>
/// <param name="Offset">The page's byte offset in the data file.</param>
/// <param name="Kind">What the page holds, as the structure pointing at it says: "tree leaf or branch", "overflow value", "fixed-size tree page", "posting list leaf", "state page", "free-space bitmap", or "unreferenced page".</param>
/// <param name="Tree">The tree the page belongs to ("$root" is the directory of trees), or null.</param>
/// <param name="Problem">What is wrong with it.</param>
public sealed record DamagedPage(long Page, string FilePath, long Offset, string Kind, string? Tree, string Problem)
{
    public override string ToString() => $"page {Page} (file '{FilePath}', offset {Offset}): {Kind}{(Tree is null ? string.Empty : $" of tree '{Tree}'")}: {Problem}";
}
