using Ingest.Server.Brokers;
using Ingest.Server.Cluster;
using System.Diagnostics.Metrics;
using Ingest.Documents;
using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;
using Ingest.Server.Telemetry;

namespace Ingest.Server.Etl;

/// <summary>
/// Runs the ETL tasks for the life of the host: those from configuration and those defined over
/// HTTP (kept in <c>{data}/etl/tasks.json</c>). Defines, replaces, deletes and resets tasks; one
/// administrative change at a time. In cluster mode each task runs on the node that owns it (its owner lease,
/// <c>etl.&lt;name&gt;</c>); the others stand by, moving their local progress over what the owner recorded.
/// </summary>
public sealed partial class EtlService : IHostedService, IAsyncDisposable
{
    public const string Folder = "etl";
    private const string DefinitionsFile = "tasks.json";

    private readonly EtlOptions _options;
    private readonly DocumentStore _store;
    private readonly ILoggerFactory _loggers;
    private readonly TimeProvider _time;
    private readonly string _folder;
    private readonly ConfiguredSecrets _secrets;
    private readonly SemaphoreSlim _admin = new(1, 1);
    private readonly Dictionary<string, EtlTaskRunner> _tasks = new(StringComparer.OrdinalIgnoreCase);
    private readonly ILogger<EtlService> _logger;
    private readonly TaskOwnership _ownership;
    private readonly EtlClusterProgress _clusterProgress;
    private readonly ClusterOptions _cluster;
    private readonly IServiceProvider _services;
    private readonly Dictionary<string, OwnerLease> _leases = new(StringComparer.OrdinalIgnoreCase);

    public EtlService(
        IOptions<EtlOptions> options, DocumentStore store, DataDirectory data, ILoggerFactory loggers, TimeProvider time, IMeterFactory meters, ConfiguredSecrets secrets,
        IOptions<ClusterOptions> cluster, IServiceProvider services)
    {
        ArgumentNullException.ThrowIfNull(cluster);
        ArgumentNullException.ThrowIfNull(services);
        _ownership = services.GetRequiredService<TaskOwnership>();
        _clusterProgress = services.GetRequiredService<EtlClusterProgress>();
        _cluster = cluster.Value;
        _services = services;
        ArgumentNullException.ThrowIfNull(secrets);
        _secrets = secrets;
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(data);
        ArgumentNullException.ThrowIfNull(loggers);
        _options = options.Value;
        _store = store;
        _loggers = loggers;
        _time = time;
        _logger = loggers.CreateLogger<EtlService>();
        _folder = Path.Combine(data.FullPath, Folder);
        Directory.CreateDirectory(_folder);
        EtlMetrics.Register(meters, () => Tasks);
        if (_cluster.Enabled)
        {
            _clusterProgress.Advanced += OnClusterProgress;
        }
    }

    /// <summary>The tasks, by name.</summary>
    internal IReadOnlyList<EtlTaskRunner> Tasks
    {
        get
        {
            lock (_tasks)
            {
                return [.. _tasks.Values.OrderBy(static t => t.Definition.Name, StringComparer.OrdinalIgnoreCase)];
            }
        }
    }

    internal EtlTaskRunner? Find(string name)
    {
        lock (_tasks)
        {
            return _tasks.GetValueOrDefault(name);
        }
    }

    public async Task StartAsync(CancellationToken cancellationToken)
    {
        foreach (var definition in _options.Tasks)
        {
            definition.FromConfiguration = true;
            await StartTaskAsync(definition).ConfigureAwait(false);
        }

        foreach (var definition in ReadStoredDefinitions())
        {
            if (Find(definition.Name!) is null)
            {
                await StartTaskAsync(definition).ConfigureAwait(false);
            }
            else
            {
                LogShadowed(definition.Name!);
            }
        }
    }

    public async Task StopAsync(CancellationToken cancellationToken)
    {
        foreach (var task in Tasks)
        {
            await ReleaseLeaseAsync(task.Definition.Name!).ConfigureAwait(false);
            await task.DisposeAsync().ConfigureAwait(false);
        }

        lock (_tasks)
        {
            _tasks.Clear();
        }
    }

    /// <summary>Defines or replaces a task (progress is kept: a replaced task goes on from where it was).</summary>
    /// <returns>Every problem with the definition; empty when it was applied.</returns>
    internal async Task<(IReadOnlyList<string> Errors, bool Created)> PutAsync(EtlTaskDefinition definition)
    {
        var errors = new List<string>();
        definition.Validate("definition", errors);
        _secrets.ValidateStored(definition.Kafka?.Settings, definition.RabbitMq?.Uri, "definition", errors);
        if (errors.Count > 0)
        {
            return (errors, false);
        }

        await _admin.WaitAsync().ConfigureAwait(false);
        try
        {
            var existing = Find(definition.Name!);
            if (existing is { Definition.FromConfiguration: true })
            {
                return ([$"The ETL task '{definition.Name}' is defined in configuration ({EtlOptions.SectionName}); change it there."], false);
            }

            if (existing is not null)
            {
                await RemoveRunnerAsync(existing).ConfigureAwait(false);
            }

            var stored = ReadStoredDefinitions().Where(d => !string.Equals(d.Name, definition.Name, StringComparison.OrdinalIgnoreCase)).ToList();
            stored.Add(definition);
            DurableJsonFile.Write(DefinitionsPath, stored, EtlJsonContext.Default.ListEtlTaskDefinition);
            await StartTaskAsync(definition).ConfigureAwait(false);
            return ([], existing is null);
        }
        finally
        {
            _admin.Release();
        }
    }

    /// <summary>Stops and removes an HTTP-defined task, its progress (so its tombstones are no longer held) and its errors.</summary>
    internal async Task<EtlAdminOutcome> DeleteAsync(string name)
    {
        await _admin.WaitAsync().ConfigureAwait(false);
        try
        {
            var task = Find(name);
            if (task is null)
            {
                return EtlAdminOutcome.NotFound;
            }

            if (task.Definition.FromConfiguration)
            {
                return EtlAdminOutcome.FromConfiguration;
            }

            await RemoveRunnerAsync(task).ConfigureAwait(false);
            var stored = ReadStoredDefinitions().Where(d => !string.Equals(d.Name, name, StringComparison.OrdinalIgnoreCase)).ToList();
            DurableJsonFile.Write(DefinitionsPath, stored, EtlJsonContext.Default.ListEtlTaskDefinition);
            await _store.UnregisterConsumerAsync(task.ConsumerName).ConfigureAwait(false);
            _clusterProgress.Remove(name);
            task.Errors.Delete();
            return EtlAdminOutcome.Done;
        }
        finally
        {
            _admin.Release();
        }
    }

    /// <summary>Makes a task send everything after <paramref name="afterEtag"/> again (0: from the start).</summary>
    internal async Task<EtlAdminOutcome> ResetAsync(string name, long afterEtag)
    {
        await _admin.WaitAsync().ConfigureAwait(false);
        try
        {
            var task = Find(name);
            if (task is null)
            {
                return EtlAdminOutcome.NotFound;
            }

            await RemoveRunnerAsync(task).ConfigureAwait(false);
            // Progress never moves back in the store, so the consumer is registered anew at the etag.
            await _store.UnregisterConsumerAsync(task.ConsumerName).ConfigureAwait(false);
            await _store.RegisterConsumerAsync(task.ConsumerName, afterEtag).ConfigureAwait(false);

            // Cluster mode: what the owners recorded as sent would be skipped again; the reset forgets it on this node.
            _clusterProgress.Remove(name);
            await StartTaskAsync(task.Definition).ConfigureAwait(false);
            LogReset(name, afterEtag);
            return EtlAdminOutcome.Done;
        }
        finally
        {
            _admin.Release();
        }
    }

    private string DefinitionsPath => Path.Combine(_folder, DefinitionsFile);

    private List<EtlTaskDefinition> ReadStoredDefinitions() =>
        DurableJsonFile.Read(DefinitionsPath, EtlJsonContext.Default.ListEtlTaskDefinition) ?? [];

    private async Task StartTaskAsync(EtlTaskDefinition definition)
    {
        var errors = new EtlErrorLog(Path.Combine(_folder, $"{definition.Name!.ToLowerInvariant()}.errors.json"));
        EtlLogProgressWriter? log = null;
        if (_cluster.Enabled)
        {
            var clusterLog = _services.GetService<IClusterLog>()
                ?? throw new InvalidOperationException("Cluster mode runs ETL tasks through the cluster topic, but no cluster log is registered.");
            log = new EtlLogProgressWriter(definition.Name!, clusterLog, _cluster.SessionTimeout / 4);
        }

        var runner = new EtlTaskRunner(
            definition, _store, errors, d => CreateDestination(d, _secrets), _loggers.CreateLogger<EtlTaskRunner>(), _time,
            cluster: log is null ? null : _clusterProgress, log: log);
        lock (_tasks)
        {
            _tasks[definition.Name!] = runner;
        }

        await runner.StartAsync().ConfigureAwait(false);
        if (log is not null)
        {
            var lease = await _ownership.AcquireAsync(LeaseName(definition.Name!), runner.RunOwnedAsync, CancellationToken.None).ConfigureAwait(false);
            lock (_leases)
            {
                _leases[definition.Name!] = lease;
            }
        }
    }

    /// <summary>The task's owner election: <c>etl.&lt;name&gt;</c>, the name lower-cased as task names are case-insensitive.</summary>
    internal static string LeaseName(string task) => $"etl.{task.ToLowerInvariant()}";

    /// <summary>Leaves the task's owner election (its loop stops first, if it runs here), so another node takes it over.</summary>
    private async Task ReleaseLeaseAsync(string task)
    {
        OwnerLease? lease;
        lock (_leases)
        {
            _leases.Remove(task, out lease);
        }

        if (lease is not null)
        {
            await _ownership.ReleaseAsync(lease).ConfigureAwait(false);
        }
    }

    private void OnClusterProgress(string task)
    {
        if (Find(task) is { } runner)
        {
            _ = AdvanceOverSentAsync(runner);
        }
    }

    private async Task AdvanceOverSentAsync(EtlTaskRunner runner)
    {
        try
        {
            await runner.AdvanceOverSentAsync().ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is ObjectDisposedException or InvalidOperationException)
        {
            // The store is closing, or the task was deleted meanwhile: the next record moves progress instead.
            LogAdvanceFailed(runner.Definition.Name!, ex.Message);
        }
    }

    private async Task RemoveRunnerAsync(EtlTaskRunner task)
    {
        lock (_tasks)
        {
            _tasks.Remove(task.Definition.Name!);
        }

        await ReleaseLeaseAsync(task.Definition.Name!).ConfigureAwait(false);
        await task.DisposeAsync().ConfigureAwait(false);
    }

    /// <summary>A destination for a definition without secret references (tests, benchmarks).</summary>
    internal static IEtlDestination CreateDestination(EtlTaskDefinition definition) => CreateDestination(definition, ConfiguredSecrets.None);

    /// <summary>The task's destination, its <c>secret:NAME</c> references resolved from <paramref name="secrets"/>.</summary>
    internal static IEtlDestination CreateDestination(EtlTaskDefinition definition, ConfiguredSecrets secrets) => definition.Kafka is { } kafka
        ? new KafkaEtlDestination(kafka, definition.Name!, definition.EffectiveSource, secrets)
        : new RabbitMqEtlDestination(definition.RabbitMq!, definition.Name!, definition.EffectiveSource, secrets);

    public async ValueTask DisposeAsync()
    {
        await StopAsync(CancellationToken.None).ConfigureAwait(false);
        _admin.Dispose();
    }

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task '{Task}' is defined in configuration and over HTTP; the configuration wins")]
    private partial void LogShadowed(string task);

    [LoggerMessage(Level = LogLevel.Warning, Message = "ETL task '{Task}': moving local progress over what its owner sent failed ({Reason})")]
    private partial void LogAdvanceFailed(string task, string reason);

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}' reset: it sends every change after etag {Etag} again")]
    private partial void LogReset(string task, long etag);
}
