using Ingest.Server.Brokers;
using System.Diagnostics.Metrics;
using Ingest.Documents;
using Ingest.Server.Hosting;
using Microsoft.Extensions.Options;
using Ingest.Server.Telemetry;

namespace Ingest.Server.Etl;

/// <summary>
/// Runs the ETL tasks for the life of the host: those from configuration and those defined over
/// HTTP (kept in <c>{data}/etl/tasks.json</c>). Defines, replaces, deletes and resets tasks; one
/// administrative change at a time.
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

    public EtlService(IOptions<EtlOptions> options, DocumentStore store, DataDirectory data, ILoggerFactory loggers, TimeProvider time, IMeterFactory meters, ConfiguredSecrets secrets)
    {
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
        var runner = new EtlTaskRunner(definition, _store, errors, d => CreateDestination(d, _secrets), _loggers.CreateLogger<EtlTaskRunner>(), _time);
        lock (_tasks)
        {
            _tasks[definition.Name!] = runner;
        }

        await runner.StartAsync().ConfigureAwait(false);
    }

    private async Task RemoveRunnerAsync(EtlTaskRunner task)
    {
        lock (_tasks)
        {
            _tasks.Remove(task.Definition.Name!);
        }

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

    [LoggerMessage(Level = LogLevel.Information, Message = "ETL task '{Task}' reset: it sends every change after etag {Etag} again")]
    private partial void LogReset(string task, long etag);
}
