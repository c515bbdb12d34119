namespace Ingest.Contracts.Http;

/// <summary>One damaged page of the store's data file.</summary>
/// <param name="Page">The page number.</param>
/// <param name="File">The data file's path.</param>
/// <param name="Offset">The page's byte offset in the file.</param>
/// <param name="Kind">What the page holds: "tree page", "overflow value", "fixed-size tree page", "posting list leaf", "state page", "free-space bitmap" or "unreferenced page".</param>
/// <param name="Tree">The tree it belongs to ("$root" is the directory of trees), when known.</param>
/// <param name="Problem">What is wrong with it.</param>
public sealed record DamagedPageEntry(long Page, string File, long Offset, string Kind, string? Tree, string Problem);
