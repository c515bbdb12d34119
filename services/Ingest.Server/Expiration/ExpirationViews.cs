using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Documents.Expiration;

namespace Ingest.Server.Expiration;

/// <summary>The expiration task's state as <c>/stats</c> and <c>GET /expiration</c> show it.</summary>
internal static class ExpirationViews
{
    /// <summary>Due documents are counted by walking the expiry tree's due end; beyond this many, the count stops.</summary>
    public const long MaxDueCounted = 1_000_000;

    public static ExpirationStatsEntry Stats(DocumentStore store, RetentionRules rules, ExpirationProgress progress)
    {
        long expiring;
        long due;
        IReadOnlyList<ExpirationRuleProgress> stored;
        using (var reader = store.BeginRead())
        {
            (expiring, due) = reader.CountExpiring(DateTime.UtcNow, MaxDueCounted);
            stored = reader.GetExpirationRules();
        }

        var collections = Rules(rules, stored, progress);
        foreach (var (name, count) in progress.ByCollection)
        {
            if (!collections.Exists(c => string.Equals(c.Name, name, StringComparison.OrdinalIgnoreCase)))
            {
                collections.Add(new ExpirationCollectionEntry(name, null, null, null, false, count));
            }
        }

        return new ExpirationStatsEntry(progress.Documents, progress.DeadLetters, progress.LastRun, progress.LastError, due, expiring, collections);
    }

    public static List<ExpirationCollectionEntry> Rules(
        RetentionRules rules, IReadOnlyList<ExpirationRuleProgress> stored, ExpirationProgress progress)
    {
        var result = new List<ExpirationCollectionEntry>();
        foreach (var active in rules.Active)
        {
            var rule = active.Rule;
            var restamping = stored.Any(s => string.Equals(s.Rule.Collection, rule.Collection, StringComparison.OrdinalIgnoreCase) && s.Restamping);
            result.Add(new ExpirationCollectionEntry(
                rule.Collection, RetentionRules.Format(rule.Keep), rule.Field, active.Source, restamping, Expired(progress, rule.Collection)));
        }

        return result;
    }

    private static long Expired(ExpirationProgress progress, string collection)
    {
        long total = 0;
        foreach (var (name, count) in progress.ByCollection)
        {
            if (string.Equals(name, collection, StringComparison.OrdinalIgnoreCase))
            {
                total += count;
            }
        }

        return total;
    }
}
