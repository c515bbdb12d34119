using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// Cluster mode, on a node that does not own a task: how far its local change feed is covered by the progress the
/// owners recorded (every change sent, or of another collection), so the local progress can move there.
/// </summary>
internal static class EtlCoveredChanges
{
    // Bounds the walk under the applier's call; the next progress record goes on from where this one stopped.
    private const int MaxChangesPerWalk = 100_000;

    /// <summary>The last etag after <paramref name="afterEtag"/> up to which every change is covered; <paramref name="afterEtag"/> if none is.</summary>
    /// <remarks>A change without a log position (written before cluster mode) ends the walk: no owner's progress can say it was sent.</remarks>
    public static long LastCoveredEtag(DocumentStore store, EtlCollectionFilter collections, long afterEtag, EtlLogProgress sent)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(collections);
        ArgumentNullException.ThrowIfNull(sent);
        if (sent.IsEmpty)
        {
            return afterEtag;
        }

        var covered = afterEtag;
        var walked = 0;
        using var reader = store.BeginRead();
        foreach (var change in reader.GetChangesSince(afterEtag))
        {
            var ofTask = collections.Includes(change.CollectionUtf8, out _);
            if (ofTask && (change.Position is not { } position || !sent.Covers(position)))
            {
                break;
            }

            covered = change.Etag;
            if (++walked >= MaxChangesPerWalk)
            {
                break;
            }
        }

        return covered;
    }
}
