using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query.Syntax;
using Microsoft.Extensions.Logging;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// Chooses the index that answers a <c>from Collection</c> query and keeps the automatic indexes.
/// <list type="bullet">
/// <item>A static index answers when its collections are exactly the query's and it has every needed field (by name,
/// case-insensitive) with a type the query's use and literals allow; else an automatic index of the collection that has
/// them all; else one is created over the union of the fields of the collection's automatic indexes and the query's, so
/// indexes are extended rather than duplicated. Types of new fields: the use, then a sample of the documents, then the
/// literal, then keyword.</item>
/// <item>An automatic index whose fields another, caught-up automatic index of the collection also has (with the same
/// types) is deleted; so is one no query used for <see cref="AutoIndexOptions.AutoIndexIdleTimeout"/>. A background
/// sweep looks every <see cref="AutoIndexOptions.SweepInterval"/> and saves the last-used times.</item>
/// </list>
/// Creation and deletion take one gate, so a sweep never deletes an index a creation is building on.
/// </summary>
public sealed partial class IndexChooser : IAsyncDisposable
{
    /// <summary>The file, in the directory given to <see cref="Open"/>, with the last-used times.</summary>
    public const string UsageFileName = "auto-index-usage.json";

    private readonly IndexSet _indexes;
    private readonly DocumentStore _store;
    private readonly AutoIndexOptions _options;
    private readonly TimeProvider _time;
    private readonly ILogger _logger;
    private readonly AutoIndexUsageLog _usage;
    private readonly SemaphoreSlim _gate = new(1, 1);
    private readonly CancellationTokenSource _stopping = new();
    private readonly List<Task> _background = [];
    private Task? _sweeping;
    private int _disposed;

    private IndexChooser(IndexSet indexes, DocumentStore store, AutoIndexUsageLog usage, AutoIndexOptions options, TimeProvider time, ILogger logger)
    {
        _indexes = indexes;
        _store = store;
        _usage = usage;
        _options = options;
        _time = time;
        _logger = logger;
    }

    /// <summary>
    /// Opens the chooser with the last-used times saved in <paramref name="directory"/>. An automatic index without a
    /// saved time (made just before a crash) counts as used now.
    /// </summary>
    public static IndexChooser Open(IndexSet indexes, DocumentStore store, string directory, AutoIndexOptions options, TimeProvider time, ILogger<IndexChooser> logger)
    {
        ArgumentNullException.ThrowIfNull(indexes);
        ArgumentNullException.ThrowIfNull(store);
        ArgumentException.ThrowIfNullOrEmpty(directory);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(time);
        ArgumentNullException.ThrowIfNull(logger);
        options.Validate();
        var usage = AutoIndexUsageLog.Load(Path.Combine(directory, UsageFileName));
        var now = time.GetUtcNow().UtcDateTime;
        var automatic = new HashSet<string>(StringComparer.Ordinal);
        foreach (var status in indexes.GetStatuses())
        {
            if (AutoIndexNames.IsAutomatic(status.Definition.Name))
            {
                automatic.Add(status.Definition.Name);
                usage.GetOrStart(status.Definition.Name, now);
            }
        }

        usage.KeepOnly(automatic);
        usage.Save();
        return new IndexChooser(indexes, store, usage, options, time, logger);
    }

    /// <summary>When a query last used the automatic index <paramref name="name"/>; null when it is not known.</summary>
    public DateTime? LastUsed(string name) => _usage.LastUsed(name);

    /// <summary>
    /// The index to answer a query on <paramref name="collection"/> that needs <paramref name="fields"/> (at least one),
    /// made or extended when none has them. An automatic index it picks counts as used now.
    /// </summary>
    /// <param name="collection">The query's collection.</param>
    /// <param name="fields">The fields the query needs.</param>
    /// <param name="check">
    /// Called with the definition of an automatic index about to be made: a query that does not bind against it throws
    /// (its <see cref="QueryException"/> passes through) and nothing is made, so a bad query cannot shape an index.
    /// </param>
    /// <param name="mayCreate">False: an index that would have to be made or widened is not; the call fails instead.</param>
    /// <param name="ct">
    /// Cancels the wait for the creation gate. Once an index is being
    /// put in the catalog it is not cancelled: a creation completes or never starts, so no half-made index is left.
    /// </param>
    /// <exception cref="QueryException">An automatic index of the collection has a needed field with a type the query cannot use.</exception>
    /// <exception cref="AutoIndexDeniedException"><paramref name="mayCreate"/> is false and no index has the fields.</exception>
    public async Task<AnsweringIndex> ChooseAsync(string collection, IReadOnlyList<IndexFieldNeed> fields, Action<IndexDefinition>? check = null, bool mayCreate = true, CancellationToken ct = default)
    {
        ArgumentException.ThrowIfNullOrEmpty(collection);
        ArgumentNullException.ThrowIfNull(fields);
        ArgumentOutOfRangeException.ThrowIfZero(fields.Count);
        if (FindExisting(_indexes.GetStatuses(), collection, fields) is { } found)
        {
            return Used(found);
        }

        await _gate.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            var statuses = _indexes.GetStatuses();
            if (FindExisting(statuses, collection, fields) is { } raced)
            {
                return Used(raced);
            }

            ThrowOnTypeConflict(statuses, collection, fields);
            return Used(await CreateAsync(statuses, collection, fields, check, mayCreate, ct).ConfigureAwait(false));
        }
        finally
        {
            _gate.Release();
        }
    }

    /// <summary>Whether an index (static or automatic) already answers a query on <paramref name="collection"/> that needs <paramref name="fields"/>.</summary>
    internal bool Covers(string collection, IReadOnlyList<IndexFieldNeed> fields) => FindExisting(_indexes.GetStatuses(), collection, fields) is not null;

    /// <summary>Starts the background sweep (idle and superseded automatic indexes, last-used times saved).</summary>
    public void StartSweeping()
    {
        _sweeping ??= Task.Run(() => SweepLoopAsync(_stopping.Token));
    }

    /// <summary>
    /// Deletes the automatic indexes idle for longer than the timeout and those a caught-up one supersedes, and saves
    /// the last-used times. Returns the names deleted.
    /// </summary>
    public async Task<IReadOnlyList<string>> SweepAsync(CancellationToken ct = default)
    {
        var deleted = new List<string>();
        await _gate.WaitAsync(ct).ConfigureAwait(false);
        try
        {
            var now = _time.GetUtcNow().UtcDateTime;
            var statuses = _indexes.GetStatuses().Where(s => AutoIndexNames.IsAutomatic(s.Definition.Name)).ToList();
            foreach (var status in statuses)
            {
                var name = status.Definition.Name;
                var lastUsed = _usage.GetOrStart(name, now);
                if (now - lastUsed >= _options.AutoIndexIdleTimeout)
                {
                    if (await _indexes.DeleteAsync(name, ct).ConfigureAwait(false))
                    {
                        LogIdleDeleted(_logger, name, lastUsed);
                        deleted.Add(name);
                    }
                }
                else if (SupersededBy(status, statuses, deleted) is { } larger)
                {
                    if (await _indexes.DeleteAsync(name, ct).ConfigureAwait(false))
                    {
                        LogSupersededDeleted(_logger, name, larger);
                        deleted.Add(name);
                    }
                }
            }

            _usage.KeepOnly(_indexes.GetStatuses().Select(s => s.Definition.Name).Where(AutoIndexNames.IsAutomatic).ToHashSet(StringComparer.Ordinal));
            _usage.Save();
        }
        finally
        {
            _gate.Release();
        }

        return deleted;
    }

    public async ValueTask DisposeAsync()
    {
        if (Interlocked.Exchange(ref _disposed, 1) != 0)
        {
            return;
        }

        await _stopping.CancelAsync().ConfigureAwait(false);
        Task[] background;
        lock (_background)
        {
            background = [.. _background];
        }

        if (_sweeping is not null)
        {
            background = [.. background, _sweeping];
        }

        try
        {
            await Task.WhenAll(background).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            // Stopping.
        }

        try
        {
            _usage.Save();
        }
        catch (IOException ex)
        {
            LogUsageNotSaved(_logger, ex);
        }

        _stopping.Dispose();
        _gate.Dispose();
    }

    private static bool IsCollectionOnly(IndexDefinition definition, string collection) =>
        definition.Collections.Count == 1 && string.Equals(definition.Collections[0], collection, StringComparison.OrdinalIgnoreCase);

    private static IndexFieldDefinition? FieldNamed(IndexDefinition definition, string path)
    {
        foreach (var field in definition.Fields)
        {
            if (string.Equals(field.Name, path, StringComparison.OrdinalIgnoreCase))
            {
                return field;
            }
        }

        return null;
    }

    private static bool UseAllows(IndexFieldNeed need, IndexFieldType type) => need.UsableTypes.Count == 0 || need.UsableTypes.Contains(type);

    /// <summary>Whether a literal of <paramref name="literal"/>'s type can be compared with a field of <paramref name="type"/>.</summary>
    private static bool LiteralFits(IndexFieldType? literal, IndexFieldType type) => literal switch
    {
        null => true,
        IndexFieldType.Keyword or IndexFieldType.Text => type is IndexFieldType.Keyword or IndexFieldType.Text or IndexFieldType.DateTime,
        IndexFieldType.Number => type is IndexFieldType.Number or IndexFieldType.DateTime,
        IndexFieldType.DateTime => type is IndexFieldType.DateTime,
        IndexFieldType.Bool => type is IndexFieldType.Bool,
        _ => false,
    };

    private static bool Covers(IndexDefinition definition, IReadOnlyList<IndexFieldNeed> fields, bool checkLiterals)
    {
        foreach (var need in fields)
        {
            if (FieldNamed(definition, need.Path) is not { } field || !UseAllows(need, field.Type) || (checkLiterals && !LiteralFits(need.LiteralType, field.Type)))
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>A covering static index, else a covering automatic one; caught-up ones first, then the larger automatic one.</summary>
    private static AnsweringIndex? FindExisting(IReadOnlyList<IndexStatus> statuses, string collection, IReadOnlyList<IndexFieldNeed> fields)
    {
        IndexStatus? bestStatic = null;
        IndexStatus? bestAuto = null;
        foreach (var status in statuses)
        {
            var definition = status.Definition;
            if (status.State == IndexState.Errored || !IsCollectionOnly(definition, collection))
            {
                continue;
            }

            var automatic = AutoIndexNames.IsAutomatic(definition.Name);
            if (!Covers(definition, fields, checkLiterals: !automatic))
            {
                continue;
            }

            if (automatic)
            {
                if (bestAuto is null || (bestAuto.IsStale && !status.IsStale) || (bestAuto.IsStale == status.IsStale && definition.Fields.Count > bestAuto.Definition.Fields.Count))
                {
                    bestAuto = status;
                }
            }
            else if (bestStatic is null || (bestStatic.IsStale && !status.IsStale))
            {
                bestStatic = status;
            }
        }

        return bestStatic is not null ? new AnsweringIndex(bestStatic.Definition.Name, false, false)
            : bestAuto is not null ? new AnsweringIndex(bestAuto.Definition.Name, true, false)
            : null;
    }

    /// <summary>An automatic index of the collection holds a needed field with a type its use rules out: the query gets a 400.</summary>
    private static void ThrowOnTypeConflict(IReadOnlyList<IndexStatus> statuses, string collection, IReadOnlyList<IndexFieldNeed> fields)
    {
        foreach (var status in statuses)
        {
            var definition = status.Definition;
            if (status.State == IndexState.Errored || !AutoIndexNames.IsAutomatic(definition.Name) || !IsCollectionOnly(definition, collection))
            {
                continue;
            }

            foreach (var need in fields)
            {
                if (FieldNamed(definition, need.Path) is { } field && !UseAllows(need, field.Type))
                {
                    var wanted = string.Join(" or ", need.UsableTypes.Select(IndexFieldTypeNames.ToWire));
                    throw new QueryException(
                        need.Position,
                        $"field '{need.Path}' is a {IndexFieldTypeNames.ToWire(field.Type)} field in automatic index '{definition.Name}', but {need.Usage ?? "this use"} needs a {wanted} field; define a static index of '{collection}' with the type you need");
                }
            }
        }
    }

    /// <summary>Another automatic index of the same collection, caught up, with every field of <paramref name="status"/> (same path and type).</summary>
    private static string? SupersededBy(IndexStatus status, IReadOnlyList<IndexStatus> automatic, List<string> deleted)
    {
        var definition = status.Definition;
        foreach (var other in automatic)
        {
            var larger = other.Definition;
            if (ReferenceEquals(other, status) || deleted.Contains(larger.Name) || other.State != IndexState.Indexing || other.IsStale
                || larger.Fields.Count <= definition.Fields.Count || !IsCollectionOnly(larger, definition.Collections[0]))
            {
                continue;
            }

            if (definition.Fields.All(f => FieldNamed(larger, f.Name) is { } same && same.Type == f.Type && same.Path == f.Path))
            {
                return larger.Name;
            }
        }

        return null;
    }

    /// <summary>The use when it allows one type; else the documents' type, the literal's, keyword, as far as the use allows them.</summary>
    private static IndexFieldType TypeFor(IndexFieldNeed need, IndexFieldType? sampled)
    {
        if (need.UsableTypes.Count == 1)
        {
            return need.UsableTypes[0];
        }

        foreach (var candidate in new[] { sampled, need.LiteralType, IndexFieldType.Keyword })
        {
            if (candidate is { } type && UseAllows(need, type))
            {
                return type;
            }
        }

        return need.UsableTypes[0];
    }

    private AnsweringIndex Used(AnsweringIndex index)
    {
        if (index.IsAutomatic)
        {
            _usage.Touch(index.Name, _time.GetUtcNow().UtcDateTime);
        }

        return index;
    }

    /// <summary>Under the gate: an automatic index over the collection's automatic fields and the query's new ones.</summary>
    private async Task<AnsweringIndex> CreateAsync(IReadOnlyList<IndexStatus> statuses, string collection, IReadOnlyList<IndexFieldNeed> fields, Action<IndexDefinition>? check, bool mayCreate, CancellationToken ct)
    {
        var union = new List<IndexFieldDefinition>();
        var widened = new List<string>();
        foreach (var status in statuses)
        {
            var definition = status.Definition;
            if (status.State == IndexState.Errored || !AutoIndexNames.IsAutomatic(definition.Name) || !IsCollectionOnly(definition, collection))
            {
                continue;
            }

            widened.Add(definition.Name);
            foreach (var field in definition.Fields)
            {
                if (!union.Any(f => string.Equals(f.Name, field.Name, StringComparison.OrdinalIgnoreCase)))
                {
                    union.Add(field);
                }
            }
        }

        var added = new List<IndexFieldNeed>();
        foreach (var need in fields)
        {
            if (!union.Any(f => string.Equals(f.Name, need.Path, StringComparison.OrdinalIgnoreCase))
                && !added.Any(a => string.Equals(a.Path, need.Path, StringComparison.OrdinalIgnoreCase)))
            {
                added.Add(need);
            }
        }

        var undecided = added.Where(n => n.UsableTypes.Count != 1).Select(n => n.Path).ToList();
        Dictionary<string, IndexFieldType> sampled;
        using (var sample = CollectionSample.Read(_store, collection, undecided.Count == 0 ? 0 : _options.AutoIndexSampleDocuments))
        {
            sampled = FieldTypeSampler.Infer(sample, undecided);
        }

        foreach (var need in added)
        {
            union.Add(new IndexFieldDefinition(need.Path, need.Path, TypeFor(need, sampled.TryGetValue(need.Path, out var guess) ? guess : null)));
        }

        var sorted = union.OrderBy(f => f.Name, StringComparer.Ordinal).ToList();
        var paths = sorted.Select(f => f.Name).ToList();
        var name = AutoIndexNames.For(collection, paths);
        var taken = statuses.FirstOrDefault(s => string.Equals(s.Definition.Name, name, StringComparison.Ordinal));
        if (taken is not null && !taken.Definition.Fields.SequenceEqual(sorted))
        {
            // Another field set cleans to the same name (a.b and ab), or a user made an index of that name.
            name = AutoIndexNames.Distinct(collection, paths);
        }

        var created = new IndexDefinition(name, [collection], sorted);
        check?.Invoke(created);
        if (widened.Count >= _options.MaxAutoIndexesPerCollection)
        {
            throw new AutoIndexLimitException(collection, name, widened.Count, _options.MaxAutoIndexesPerCollection);
        }

        if (!mayCreate)
        {
            throw new AutoIndexDeniedException(collection, name, paths, widened.Count == 0 ? null : string.Join(", ", widened));
        }

        ct.ThrowIfCancellationRequested();
        long collectionEtag = CollectionLastEtag(collection);
        var outcome = await _indexes.PutAsync(created, ct).ConfigureAwait(false);
        LogCreated(_logger, name, string.Join(", ", sorted.Select(f => $"{f.Name} ({IndexFieldTypeNames.ToWire(f.Type)})")), outcome);
        _usage.Touch(name, _time.GetUtcNow().UtcDateTime);
        _usage.Save();
        RemoveSupersededWhenCaughtUp(name, collectionEtag);
        return new AnsweringIndex(name, true, true);
    }

    private long CollectionLastEtag(string collection)
    {
        using var reader = _store.BeginRead();
        return reader.GetStats().Collections.FirstOrDefault(c => string.Equals(c.Name, collection, StringComparison.OrdinalIgnoreCase))?.LastEtag ?? 0;
    }

    /// <summary>Once the new index has indexed what its collection held when it was made, the smaller ones go.</summary>
    private void RemoveSupersededWhenCaughtUp(string name, long etag)
    {
        var task = Task.Run(async () =>
        {
            try
            {
                if (await _indexes.WaitForIndexedEtagAsync(name, etag, Timeout.InfiniteTimeSpan, _stopping.Token).ConfigureAwait(false))
                {
                    await SweepAsync(_stopping.Token).ConfigureAwait(false);
                }
            }
            catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException)
            {
                // Stopping: the next sweep after a start does it.
            }
            catch (Exception ex)
            {
                LogSweepFailed(_logger, ex);
            }
        });
        lock (_background)
        {
            _background.RemoveAll(t => t.IsCompleted);
            _background.Add(task);
        }
    }

    private async Task SweepLoopAsync(CancellationToken ct)
    {
        using var timer = new PeriodicTimer(_options.SweepInterval, _time);
        try
        {
            while (await timer.WaitForNextTickAsync(ct).ConfigureAwait(false))
            {
                try
                {
                    await SweepAsync(ct).ConfigureAwait(false);
                }
                catch (Exception ex) when (ex is not OperationCanceledException and not ObjectDisposedException)
                {
                    LogSweepFailed(_logger, ex);
                }
            }
        }
        catch (Exception ex) when (ex is OperationCanceledException or ObjectDisposedException)
        {
            // Stopping.
        }
    }

    [LoggerMessage(EventId = 1300, Level = LogLevel.Information, Message = "Automatic index '{Index}' over {Fields}: {Outcome}")]
    private static partial void LogCreated(ILogger logger, string index, string fields, IndexPutOutcome outcome);

    [LoggerMessage(EventId = 1301, Level = LogLevel.Information, Message = "Automatic index '{Index}' deleted: unused since {LastUsed:O}")]
    private static partial void LogIdleDeleted(ILogger logger, string index, DateTime lastUsed);

    [LoggerMessage(EventId = 1302, Level = LogLevel.Information, Message = "Automatic index '{Index}' deleted: '{Larger}' has all its fields and has caught up")]
    private static partial void LogSupersededDeleted(ILogger logger, string index, string larger);

    [LoggerMessage(EventId = 1303, Level = LogLevel.Warning, Message = "Sweeping the automatic indexes failed; the next sweep tries again")]
    private static partial void LogSweepFailed(ILogger logger, Exception exception);

    [LoggerMessage(EventId = 1304, Level = LogLevel.Warning, Message = "The automatic indexes' last-used times could not be saved")]
    private static partial void LogUsageNotSaved(ILogger logger, Exception exception);
}
