using Ingest.Storage;

namespace Ingest.Server.Hosting.Http;

/// <summary>RFC 7807 problems for a store that cannot serve a request: its disk is full, or a page is damaged.</summary>
internal static class StoreProblems
{
    public const string DiskFullType = "urn:ingest:problem:disk-full";
    public const string DamagedType = "urn:ingest:problem:store-damaged";

    public static IResult DiskFull(DiskFullException ex) =>
        TypedResults.Problem(
            title: "The store's disk is full",
            detail: $"Nothing of this request was written. {ex.Message}",
            statusCode: StatusCodes.Status507InsufficientStorage,
            type: DiskFullType,
            extensions: new Dictionary<string, object?>
            {
                // For scripts that wait for room: writing resumes once the file system has this much free.
                ["bytesNeeded"] = ex.BytesNeeded,
                ["bytesFree"] = ex.BytesFree,
            });

    public static IResult Damaged(StorageCorruptionException ex) =>
        TypedResults.Problem(
            title: "The store is damaged",
            detail: $"{ex.Message}. Run POST /admin/verify (or 'ingest verify' on the stopped server's data directory) to list every damaged page; restore the store from a backup.",
            statusCode: StatusCodes.Status500InternalServerError,
            type: DamagedType,
            extensions: new Dictionary<string, object?>
            {
                ["file"] = ex.FilePath,
                ["offset"] = ex.Offset,
                ["page"] = ex.Page >= 0 ? ex.Page : null,
            });
}
