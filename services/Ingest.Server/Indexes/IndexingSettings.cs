using Ingest.Indexing.Runtime;

namespace Ingest.Server.Indexes;

/// <summary>Checks <c>Ingest:Indexing</c> (bound into the engine's <see cref="IndexingOptions"/>) so start-up names each bad setting.</summary>
internal static class IndexingSettings
{
    public const string SectionName = "Ingest:Indexing";

    /// <summary>The engine's smallest batch budget: below it a batch could not hold one large document's terms.</summary>
    public const long MinBatchMemoryBudgetBytes = 64 * 1024;

    public static IReadOnlyList<string> Validate(IndexingOptions options)
    {
        var errors = new List<string>();
        if (options.BatchMemoryBudgetBytes < MinBatchMemoryBudgetBytes)
        {
            errors.Add($"{SectionName}:{nameof(IndexingOptions.BatchMemoryBudgetBytes)} must be at least {MinBatchMemoryBudgetBytes} (was {options.BatchMemoryBudgetBytes}).");
        }

        if (options.MaxBatchDuration <= TimeSpan.Zero)
        {
            errors.Add($"{SectionName}:{nameof(IndexingOptions.MaxBatchDuration)} must be > 0 (was {options.MaxBatchDuration}).");
        }

        if (options.MaxBatchDocuments is < 1)
        {
            errors.Add($"{SectionName}:{nameof(IndexingOptions.MaxBatchDocuments)} must be at least 1 when set (was {options.MaxBatchDocuments}).");
        }

        return errors;
    }
}
