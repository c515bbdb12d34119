namespace Ingest.Contracts.Http;

/// <summary>The store's check (<c>POST /admin/verify</c>): every page's checksum and every tree's structure.</summary>
/// <param name="Clean">No damaged page was found.</param>
/// <param name="TransactionId">The committed transaction whose snapshot was checked.</param>
/// <param name="PagesChecked">Pages checked.</param>
/// <param name="TreesChecked">Trees walked (the directory of trees included).</param>
/// <param name="Damaged">Each damaged page, with what lives there.</param>
public sealed record VerifyResponse(bool Clean, long TransactionId, long PagesChecked, int TreesChecked, IReadOnlyList<DamagedPageEntry> Damaged);
