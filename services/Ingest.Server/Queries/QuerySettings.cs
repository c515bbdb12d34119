using Ingest.Query.AutoIndexes;

namespace Ingest.Server.Queries;

/// <summary>Checks <c>Ingest:Queries</c> (bound into the engine's <see cref="AutoIndexOptions"/>) so start-up names each bad setting.</summary>
internal static class QuerySettings
{
    public const string SectionName = "Ingest:Queries";

    public static IReadOnlyList<string> Validate(AutoIndexOptions options)
    {
        var errors = new List<string>();
        if (options.AutoIndexIdleTimeout <= TimeSpan.Zero)
        {
            errors.Add($"{SectionName}:{nameof(AutoIndexOptions.AutoIndexIdleTimeout)} must be > 0, e.g. 01:00:00 for an hour (was {options.AutoIndexIdleTimeout}).");
        }

        if (options.AutoIndexSampleDocuments < 0)
        {
            errors.Add($"{SectionName}:{nameof(AutoIndexOptions.AutoIndexSampleDocuments)} must be 0 or more (was {options.AutoIndexSampleDocuments}).");
        }

        if (options.MaxAutoIndexesPerCollection < 1)
        {
            errors.Add($"{SectionName}:{nameof(AutoIndexOptions.MaxAutoIndexesPerCollection)} must be 1 or more (was {options.MaxAutoIndexesPerCollection}).");
        }

        return errors;
    }
}
