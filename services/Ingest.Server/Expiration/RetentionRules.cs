using System.Globalization;
using Ingest.Documents;
using Ingest.Documents.Expiration;
using Ingest.Documents.Ids;
using Ingest.Server.Etl;
using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Expiration;

/// <summary>
/// The retention rules in force: configuration, overridden per collection by rules set or removed over HTTP
/// (kept in <c>expiration-rules.json</c> in the data directory). Every change is handed to the store, which
/// records the rules and re-stamps the documents it already holds, and wakes the expiration task.
/// </summary>
internal sealed class RetentionRules
{
    public const string FileName = "expiration-rules.json";
    public const string FromConfiguration = "configuration";
    public const string FromHttp = "http";

    private readonly ExpirationOptions _options;
    private readonly DocumentStore _store;
    private readonly string _path;
    private readonly SemaphoreSlim _changing = new(1, 1);
    private readonly Dictionary<string, RetentionOverride> _set = new(StringComparer.Ordinal);
    private readonly HashSet<string> _removed = new(StringComparer.Ordinal);
    private IReadOnlyList<ActiveRetentionRule> _active = [];
    private TaskCompletionSource _changed = NewSignal();

    public RetentionRules(IOptions<ExpirationOptions> options, DocumentStore store, DataDirectory directory)
    {
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(directory);
        _options = options.Value;
        _store = store;
        _path = Path.Combine(directory.FullPath, FileName);
        if (DurableJsonFile.Read(_path, ExpirationJsonContext.Default.RetentionOverridesFile) is { } file)
        {
            foreach (var rule in file.Set ?? [])
            {
                _set[IdKey.FoldToString(rule.Collection)] = rule;
            }

            foreach (var removed in file.Removed ?? [])
            {
                _removed.Add(IdKey.FoldToString(removed));
            }
        }

        _active = Compute();
    }

    /// <summary>The rules in force, configuration first.</summary>
    public IReadOnlyList<ActiveRetentionRule> Active => Volatile.Read(ref _active);

    /// <summary>Completes when a rule changes next.</summary>
    public Task Changed => Volatile.Read(ref _changed).Task;

    /// <summary>Hands the rules in force to the store (at start: configuration may have changed since the last run).</summary>
    public async Task ApplyAsync()
    {
        await _changing.WaitAsync().ConfigureAwait(false);
        try
        {
            await ApplyLockedAsync().ConfigureAwait(false);
        }
        finally
        {
            _changing.Release();
        }
    }

    /// <summary>Sets (or, with a null <paramref name="rule"/>, removes) a collection's rule over HTTP. False if there was no rule to remove.</summary>
    /// <exception cref="ArgumentException">The store refused the rule; the message says why.</exception>
    public async Task<bool> SetAsync(string collection, RetentionOverride? rule)
    {
        var folded = IdKey.FoldToString(collection);
        await _changing.WaitAsync().ConfigureAwait(false);
        try
        {
            if (rule is null)
            {
                var existed = _set.Remove(folded) | (FindConfigured(folded) is not null && _removed.Add(folded));
                if (!existed)
                {
                    return false;
                }
            }
            else
            {
                _set[folded] = rule;
                _removed.Remove(folded);
            }

            DurableJsonFile.Write(_path, new RetentionOverridesFile([.. _set.Values], [.. _removed]), ExpirationJsonContext.Default.RetentionOverridesFile);
            Volatile.Write(ref _active, Compute());
            await ApplyLockedAsync().ConfigureAwait(false);
            return true;
        }
        finally
        {
            _changing.Release();
        }
    }

    public static string Format(TimeSpan keep) => keep.ToString("c", CultureInfo.InvariantCulture);

    private async Task ApplyLockedAsync()
    {
        var rules = new List<ExpirationRule>(_active.Count);
        foreach (var active in _active)
        {
            rules.Add(active.Rule);
        }

        await _store.SetExpirationRulesAsync(rules).ConfigureAwait(false);
        Interlocked.Exchange(ref _changed, NewSignal()).TrySetResult();
    }

    private List<ActiveRetentionRule> Compute()
    {
        var result = new List<ActiveRetentionRule>();
        foreach (var (name, configured) in _options.Collections)
        {
            var folded = IdKey.FoldToString(name);
            if (!_set.ContainsKey(folded) && !_removed.Contains(folded))
            {
                result.Add(new ActiveRetentionRule(new ExpirationRule(name, configured.Keep!.Value, configured.Field), FromConfiguration));
            }
        }

        foreach (var rule in _set.Values)
        {
            result.Add(new ActiveRetentionRule(new ExpirationRule(rule.Collection, rule.Keep, rule.Field), FromHttp));
        }

        return result;
    }

    private CollectionRetentionOptions? FindConfigured(string folded)
    {
        foreach (var (name, configured) in _options.Collections)
        {
            if (IdKey.FoldToString(name) == folded)
            {
                return configured;
            }
        }

        return null;
    }

    private static TaskCompletionSource NewSignal() => new(TaskCreationOptions.RunContinuationsAsynchronously);
}
