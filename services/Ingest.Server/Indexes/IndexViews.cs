using System.Text.Json;
using Ingest.Contracts.Http;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.AutoIndexes;

namespace Ingest.Server.Indexes;

/// <summary>The engine's index statuses as the HTTP API's records.</summary>
internal static class IndexViews
{
    public static string StateName(IndexState state) => state switch
    {
        IndexState.Indexing => "indexing",
        IndexState.Rebuilding => "rebuilding",
        IndexState.Errored => "errored",
        _ => state.ToString().ToLowerInvariant(),
    };

    public static string OutcomeName(IndexPutOutcome outcome) => outcome switch
    {
        IndexPutOutcome.Created => "created",
        IndexPutOutcome.Unchanged => "unchanged",
        IndexPutOutcome.Rebuilding => "rebuilding",
        _ => outcome.ToString().ToLowerInvariant(),
    };

    public static IndexSummaryEntry Summary(IndexStatus status) =>
        new(status.Definition.Name, StateName(status.State), status.Error, status.IsStale, status.LastIndexedEtag, status.CollectionsLastEtag, status.EntryCount, AutoIndexNames.IsAutomatic(status.Definition.Name))
        {
            MapReduce = status.Definition.Reduce is not null,
        };

    public static IndexDetailsResponse Details(IndexStatus status)
    {
        var fields = new IndexFieldStatsEntry[status.Fields.Count];
        for (var i = 0; i < fields.Length; i++)
        {
            var field = status.Fields[i];
            fields[i] = new IndexFieldStatsEntry(field.Name, field.WrongTypeCount, field.NullCount);
        }

        var pending = status.PendingDefinition is { } next
            ? new IndexPendingRebuildEntry(Definition(next), status.PendingLastIndexedEtag ?? 0)
            : null;
        return new IndexDetailsResponse(
            status.Definition.Name,
            Definition(status.Definition),
            StateName(status.State),
            status.Error,
            status.IsStale,
            status.LastIndexedEtag,
            status.CollectionsLastEtag,
            status.EntryCount,
            new IndexBatchStatsEntry(status.BatchesClosed, status.LastBatchDocuments, status.PeakBatchMemoryBytes, status.LastBatchAt),
            fields,
            pending);
    }

    /// <summary>Through the engine's own wire form, so the API shows a definition exactly as PUT takes it (type names, exactCase).</summary>
    public static IndexDefinitionEntry Definition(IndexDefinition definition) =>
        JsonSerializer.Deserialize(IndexDefinitionJson.ToUtf8(definition), IngestHttpJsonContext.Default.IndexDefinitionEntry)
        ?? throw new InvalidOperationException($"The definition of index '{definition.Name}' did not serialize.");
}
