using System.Diagnostics;
using Ingest.Indexing.Storage;
using Ingest.Query.Execution;

namespace Ingest.Query;

/// <summary>
/// A query <see cref="QueryEngine"/> started: its results (rows are read as they are written) and what a response
/// says about them (the answering index, staleness). Holds the index reader until disposed, so the build it reads
/// cannot be retired under it.
/// </summary>
public sealed class RunningQuery : IDisposable
{
    private readonly IndexReader? _reader;
    private readonly long _started;
    private Action? _onDispose;

    internal RunningQuery(QueryResults results, IndexReader? reader, string indexName, bool isAutomatic, bool indexCreated, bool isStale, long lastIndexedEtag, long started, Action onDispose)
    {
        _onDispose = onDispose;
        Results = results;
        _reader = reader;
        IndexName = indexName;
        IsAutomaticIndex = isAutomatic;
        IndexCreated = indexCreated;
        IsStale = isStale;
        LastIndexedEtag = lastIndexedEtag;
        _started = started;
    }

    public QueryResults Results { get; }

    /// <summary>What the query's author should know about its answer (an unknown collection or field); empty when nothing.</summary>
    public IReadOnlyList<string> Warnings { get; internal init; } = [];

    /// <summary>The answering index, or <c>collection/Orders</c> for a collection scan.</summary>
    public string IndexName { get; }

    public bool IsAutomaticIndex { get; }

    /// <summary>The automatic index was made or extended for this query.</summary>
    public bool IndexCreated { get; }

    /// <summary>The index had not indexed every change its collections had when the query started.</summary>
    public bool IsStale { get; }

    public long LastIndexedEtag { get; }

    /// <summary>Milliseconds since the query started.</summary>
    public double ElapsedMilliseconds => Stopwatch.GetElapsedTime(_started).TotalMilliseconds;

    public void Dispose()
    {
        if (Interlocked.Exchange(ref _onDispose, null) is not { } onDispose)
        {
            return;
        }

        Results.Dispose();
        _reader?.Dispose();
        onDispose();
    }
}
