using Ingest.Documents;

namespace Ingest.Server.Expiration;

/// <summary>The rules a retention rule must follow, the same from configuration and over HTTP.</summary>
internal static class RetentionRuleCheck
{
    /// <summary>What is wrong with the rule, or null.</summary>
    public static string? Check(string collection, TimeSpan? keep, string? field)
    {
        if (string.IsNullOrWhiteSpace(collection) || collection.Length > DocumentStoreOptions.MaxCollectionBytes)
        {
            return $"the collection name must be 1 to {DocumentStoreOptions.MaxCollectionBytes} characters, not only whitespace.";
        }

        if (keep is not { } k)
        {
            return "keep is required: how long documents are kept, as a TimeSpan such as \"30.00:00:00\" (30 days).";
        }

        if (k <= TimeSpan.Zero)
        {
            return $"keep must be positive (was {k}).";
        }

        if (field is not null && (field.Length == 0 || field.Contains('.', StringComparison.Ordinal)))
        {
            return $"field '{field}' must name a top-level property (no dots), or be left out to count from when each document was written.";
        }

        return null;
    }
}
