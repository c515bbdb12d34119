using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Cluster;
using Ingest.Server.Hosting;

namespace Ingest.Server.Etl;

/// <summary>
/// The ETL tasks' node-independent progress on this node (cluster mode): applies the <c>etl-progress</c> records of
/// the cluster topic, whichever node's task wrote them, keeping per task the highest position per log partition
/// (merged, so a record applied twice or a late record of a former owner never moves progress back), durably in
/// <c>{data}/etl/cluster-progress.json</c>. A node that becomes a task's owner resumes from here.
/// </summary>
internal sealed class EtlClusterProgress : IClusterRecordHandler
{
    private const string FileName = "cluster-progress.json";

    private readonly string _path;
    private readonly Lock _lock = new();
    private readonly Dictionary<string, EtlLogProgress> _tasks = new(StringComparer.OrdinalIgnoreCase);

    public EtlClusterProgress(DataDirectory data)
    {
        ArgumentNullException.ThrowIfNull(data);
        var folder = Path.Combine(data.FullPath, EtlService.Folder);
        Directory.CreateDirectory(folder);
        _path = Path.Combine(folder, FileName);
        foreach (var (task, positions) in DurableJsonFile.Read(_path, EtlJsonContext.Default.DictionaryStringListLogPosition) ?? [])
        {
            _tasks[task] = new EtlLogProgress(positions);
        }
    }

    public string Kind => EtlProgressRecord.Kind;

    /// <summary>Raised after a record moved a task's progress (the task's name), on the applier's thread.</summary>
    public event Action<string>? Advanced;

    /// <summary>A copy of the task's recorded progress (empty: nothing recorded yet).</summary>
    public EtlLogProgress Get(string task)
    {
        lock (_lock)
        {
            return _tasks.TryGetValue(task, out var progress) ? progress.Copy() : new EtlLogProgress();
        }
    }

    public Task ApplyAsync(ClusterRecord record, ClusterPosition position, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(record);
        EtlProgressRecord? body;
        try
        {
            body = JsonSerializer.Deserialize(record.Body.Span, EtlJsonContext.Default.EtlProgressRecord);
        }
        catch (JsonException ex)
        {
            throw new InvalidDataException($"The etl-progress record at {position} is not valid: {ex.Message}", ex);
        }

        if (body is null || string.IsNullOrWhiteSpace(body.Task))
        {
            throw new InvalidDataException($"The etl-progress record at {position} names no task.");
        }

        if (Merge(body.Task, body.Positions))
        {
            Advanced?.Invoke(body.Task);
        }

        return Task.CompletedTask;
    }

    /// <summary>Forgets a deleted task's progress.</summary>
    public void Remove(string task)
    {
        lock (_lock)
        {
            if (_tasks.Remove(task))
            {
                Save();
            }
        }
    }

    private bool Merge(string task, List<LogPosition> positions)
    {
        lock (_lock)
        {
            if (!_tasks.TryGetValue(task, out var progress))
            {
                _tasks[task] = progress = new EtlLogProgress();
            }

            if (!progress.Merge(positions))
            {
                return false;
            }

            // Durable before the applier stores the record's position as applied: a crash in between applies it again (merging is idempotent).
            Save();
            return true;
        }
    }

    private void Save()
    {
        var state = new Dictionary<string, List<LogPosition>>(StringComparer.OrdinalIgnoreCase);
        foreach (var (task, progress) in _tasks)
        {
            state[task] = progress.ToList();
        }

        DurableJsonFile.Write(_path, state, EtlJsonContext.Default.DictionaryStringListLogPosition);
    }
}
