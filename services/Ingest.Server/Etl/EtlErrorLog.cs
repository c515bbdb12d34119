namespace Ingest.Server.Etl;

/// <summary>
/// The documents one task could not transform, kept in <c>{data}/etl/{task}.errors.json</c>. Errors
/// are written before the task records progress past them, so none is lost in a crash; one
/// recorded twice (crash in between) is kept once, by document and etag.
/// </summary>
internal sealed class EtlErrorLog
{
    /// <summary>Beyond this, the oldest errors are dropped (and counted), so a script failing on everything cannot fill the disk.</summary>
    public const int MaxErrors = 10_000;

    private readonly string _path;
    private readonly Lock _lock = new();
    private List<EtlError> _errors;

    public EtlErrorLog(string path)
    {
        _path = path;
        _errors = DurableJsonFile.Read(path, EtlJsonContext.Default.ListEtlError) ?? [];
    }

    public int Count
    {
        get
        {
            lock (_lock)
            {
                return _errors.Count;
            }
        }
    }

    /// <summary>Errors dropped because the log was full, since the server started.</summary>
    public long Dropped { get; private set; }

    public IReadOnlyList<EtlError> List(long afterId, int limit)
    {
        lock (_lock)
        {
            return _errors.Where(e => e.Id > afterId).Take(limit).ToList();
        }
    }

    public EtlError? Find(long id)
    {
        lock (_lock)
        {
            return _errors.Find(e => e.Id == id);
        }
    }

    /// <summary>Records failures durably; a document and etag already recorded gets its attempt count raised.</summary>
    public void Record(IReadOnlyList<(string DocumentId, string Collection, long Etag, string Error)> failures, DateTime now)
    {
        if (failures.Count == 0)
        {
            return;
        }

        lock (_lock)
        {
            var next = _errors.Count == 0 ? 1 : _errors[^1].Id + 1;
            var updated = new List<EtlError>(_errors);
            foreach (var (documentId, collection, etag, error) in failures)
            {
                var index = updated.FindIndex(e => e.Etag == etag && e.DocumentId == documentId);
                if (index >= 0)
                {
                    updated[index] = updated[index] with { Error = error, Time = now, Attempts = updated[index].Attempts + 1 };
                }
                else
                {
                    updated.Add(new EtlError(next++, documentId, collection, etag, error, now, 1));
                }
            }

            if (updated.Count > MaxErrors)
            {
                Dropped += updated.Count - MaxErrors;
                updated.RemoveRange(0, updated.Count - MaxErrors);
            }

            DurableJsonFile.Write(_path, updated, EtlJsonContext.Default.ListEtlError);
            _errors = updated;
        }
    }

    public bool Remove(long id)
    {
        lock (_lock)
        {
            var updated = _errors.Where(e => e.Id != id).ToList();
            if (updated.Count == _errors.Count)
            {
                return false;
            }

            DurableJsonFile.Write(_path, updated, EtlJsonContext.Default.ListEtlError);
            _errors = updated;
            return true;
        }
    }

    /// <summary>Removes the file (the task was deleted).</summary>
    public void Delete()
    {
        lock (_lock)
        {
            _errors = [];
            File.Delete(_path);
        }
    }
}
