using Ingest.Contracts.Http;
using Ingest.Documents;
using Ingest.Query;
using Ingest.Server.Batching;
using Ingest.Server.Etl;
using Ingest.Server.Expiration;
using Ingest.Server.Hosting.Http.Security;
using Ingest.Server.Indexes;
using Ingest.Server.Sources;

namespace Ingest.Server.Operations;

/// <summary><c>/stats</c>: the store's counters, its collections, each source's consumption, batching and lag, a summary of each index and each ETL task's progress.</summary>
public static class StatsEndpoints
{
    public static IEndpointRouteBuilder MapStatsEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/stats", GetStats).RequireScope(ApiScopes.Read);
        return endpoints;
    }

    private static IResult GetStats(DocumentStore store, IngestionService ingestion, QueryEngine engine, EtlService etl, IServiceProvider services)
    {
        var stats = store.GetStats();
        var space = store.GetSpace();
        var storeEntry = new StoreStatsEntry(
            stats.LastEtag, store.CommitCount, store.BatchCount, store.JournalSyncCount, stats.DocumentCount,
            stats.TombstoneCount, stats.DocumentBytes, stats.DeadLetterCount, stats.StorageBytes,
            ToEntry(space), space.FileSystemFreeBytes >= 0 ? space.FileSystemFreeBytes : null);

        var collections = new CollectionStatsEntry[stats.Collections.Count];
        for (var i = 0; i < collections.Length; i++)
        {
            var collection = stats.Collections[i];
            collections[i] = new CollectionStatsEntry(collection.Name, collection.Count, collection.BodyBytes, collection.LastEtag)
            {
                StoredBodyBytes = collection.StoredBodyBytes,
                CompressionRatio = collection.StoredBodyBytes > 0 ? Math.Round((double)collection.BodyBytes / collection.StoredBodyBytes, 3) : 1,
                CompressionDictionary = collection.DictionaryId,
            };
        }

        var sources = new SourceStatsEntry[ingestion.Sources.Count];
        for (var i = 0; i < sources.Length; i++)
        {
            sources[i] = ToEntry(ingestion.Sources[i].GetStatus());
        }

        var indexSpaces = engine.Indexes.GetSpaces();
        var indexSummaries = engine.Indexes.GetStatuses()
            .Select(s => IndexViews.Summary(s) with { Disk = indexSpaces.TryGetValue(s.Definition.Name, out var d) ? ToEntry(d) : null })
            .ToArray();
        var etlTasks = etl.Tasks.Select(static t => EtlViews.Stats(t.Definition.Name!, t.GetStatus())).ToArray();
        return TypedResults.Json(
            new StatsResponse(
                storeEntry, collections, sources, stats.DeadLetterCount, indexSummaries, etlTasks,
                ExpirationViews.Stats(store, services.GetRequiredService<RetentionRules>(), services.GetRequiredService<ExpirationProgress>())),
            IngestHttpJsonContext.Default.StatsResponse);
    }

    private static DiskSpaceEntry ToEntry(Ingest.Storage.StorageSpace space) => new(space.DataFileBytes, space.JournalBytes, space.FreePageBytes);

    private static SourceStatsEntry ToEntry(SourceStatus status)
    {
        var partitions = new PartitionStatsEntry[status.Partitions.Count];
        for (var i = 0; i < partitions.Length; i++)
        {
            var partition = status.Partitions[i];
            partitions[i] = new PartitionStatsEntry(partition.Name, partition.Partition, partition.CommittedOffset, partition.HighWatermark, partition.Lag);
        }

        var entry = new SourceStatsEntry(
            status.Name, status.Kind, status.Connected, status.Error, status.Consumed, status.Written, status.DeadLetters, status.Paused,
            partitions, ToEntry(status.Batching));
        if (status.Group is not { } group)
        {
            return entry;
        }

        long lost = 0;
        var losses = new RetentionLossEntry[group.RetentionLosses.Count];
        for (var i = 0; i < losses.Length; i++)
        {
            var loss = group.RetentionLosses[i];
            losses[i] = new RetentionLossEntry(loss.Topic, loss.Partition, loss.FirstAvailableOffset, loss.Lost);
            lost += loss.Lost;
        }

        return entry with
        {
            Group = group.GroupId,
            ClientId = group.ClientId,
            SharedGroup = group.SharedGroup,
            OtherMembers = ToEntries(group.OtherMembers),
            LostToRetention = lost,
            RetentionLosses = losses,
        };
    }

    internal static GroupMemberEntry[] ToEntries(IReadOnlyList<GroupMemberStatus> members)
    {
        var entries = new GroupMemberEntry[members.Count];
        for (var i = 0; i < entries.Length; i++)
        {
            var member = members[i];
            entries[i] = new GroupMemberEntry(member.MemberId, member.ClientId, member.Host, member.Partitions);
        }

        return entries;
    }

    internal static BatchingStatsEntry ToEntry(BatchStatistics batching)
    {
        var hasBatches = batching.Batches > 0;
        var hasCommits = batching.Commits > 0;
        return new BatchingStatsEntry(
            batching.Batches,
            batching.Items,
            batching.AverageItems,
            batching.ItemsPercentile(50),
            batching.ItemsPercentile(99),
            new BatchCloseCounts(
                batching.ClosedBy(BatchCloseReason.Count),
                batching.ClosedBy(BatchCloseReason.Bytes),
                batching.ClosedBy(BatchCloseReason.Delay),
                batching.ClosedBy(BatchCloseReason.Flush)),
            hasBatches ? batching.FirstItemAgePercentile(50).TotalMilliseconds : 0,
            hasBatches ? batching.FirstItemAgePercentile(99).TotalMilliseconds : 0,
            batching.Commits,
            hasCommits ? batching.CommitLatencyPercentile(50).TotalMilliseconds : 0,
            hasCommits ? batching.CommitLatencyPercentile(99).TotalMilliseconds : 0,
            batching.MaxCommitLatency.TotalMilliseconds,
            batching.ProducerWaits);
    }
}
