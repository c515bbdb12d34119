namespace Ingest.Benchmarks.Indexing;

/// <summary>One change of the churn: order <paramref name="Index"/> of the dataset gets <paramref name="NewBody"/>, or is deleted when it is null.</summary>
internal sealed record ChurnChange(int Index, byte[]? NewBody);
