namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>
/// An <c>MDB_txn*</c>. Spans returned by reads point into LMDB's memory map and are valid until
/// the transaction ends, is reset, or (in a write transaction) the next write.
/// A read transaction can be <see cref="Reset"/> and <see cref="Renew"/>ed any number of times:
/// that is LMDB's cheap path to a fresh snapshot, with no allocation on either side.
/// </summary>
internal sealed unsafe class LmdbTransaction : IDisposable
{
    private const uint ReadOnlyFlag = 0x20000;

    private readonly LmdbEnvironmentHandle _environment;
    private nint _txn;
    private TransactionState _state;

    private LmdbTransaction(LmdbEnvironmentHandle environment, nint txn, bool readOnly)
    {
        _environment = environment;
        _txn = txn;
        IsReadOnly = readOnly;
        _state = TransactionState.Active;
    }

    private enum TransactionState
    {
        Active,
        Reset,
        Ended,
    }

    public bool IsReadOnly { get; }

    public bool IsActive => _state == TransactionState.Active;

    public static LmdbTransaction Begin(LmdbEnvironmentHandle environment, bool readOnly)
    {
        // Held until the transaction ends, so that disposing the environment first cannot close it under us.
        var added = false;
        environment.DangerousAddRef(ref added);
        try
        {
            nint txn;
            LmdbException.ThrowIfFailed(LmdbNative.mdb_txn_begin(environment, 0, readOnly ? ReadOnlyFlag : 0, &txn), "mdb_txn_begin");
            return new LmdbTransaction(environment, txn, readOnly);
        }
        catch
        {
            environment.DangerousRelease();
            throw;
        }
    }

    public LmdbDatabase OpenDatabase(string name, uint flags)
    {
        ThrowIfNotActive();
        uint dbi;
        fixed (byte* utf8 = LmdbEnvironment.NullTerminated(name))
        {
            LmdbException.ThrowIfFailed(LmdbNative.mdb_dbi_open(_txn, utf8, flags, &dbi), "mdb_dbi_open");
        }

        return new LmdbDatabase(dbi);
    }

    public bool TryGet(LmdbDatabase database, ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        ThrowIfNotActive();
        MdbVal data;
        int result;
        fixed (byte* keyBytes = key)
        {
            var keyVal = new MdbVal(keyBytes, key.Length);
            result = LmdbNative.mdb_get(_txn, database.Handle, &keyVal, &data);
        }

        if (result == LmdbNative.NotFound)
        {
            value = default;
            return false;
        }

        LmdbException.ThrowIfFailed(result, "mdb_get");
        value = data.AsSpan();
        return true;
    }

    public void Put(LmdbDatabase database, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value, LmdbPutFlags flags = LmdbPutFlags.None)
    {
        ThrowIfNotActive();
        fixed (byte* keyBytes = key)
        fixed (byte* valueBytes = value)
        {
            var keyVal = new MdbVal(keyBytes, key.Length);
            var dataVal = new MdbVal(valueBytes, value.Length);
            LmdbException.ThrowIfFailed(LmdbNative.mdb_put(_txn, database.Handle, &keyVal, &dataVal, (uint)flags), "mdb_put");
        }
    }

    /// <summary>Deletes a key; false when it was not there.</summary>
    public bool Delete(LmdbDatabase database, ReadOnlySpan<byte> key)
    {
        ThrowIfNotActive();
        int result;
        fixed (byte* keyBytes = key)
        {
            var keyVal = new MdbVal(keyBytes, key.Length);
            result = LmdbNative.mdb_del(_txn, database.Handle, &keyVal, null);
        }

        if (result == LmdbNative.NotFound)
        {
            return false;
        }

        LmdbException.ThrowIfFailed(result, "mdb_del");
        return true;
    }

    public long CountEntries(LmdbDatabase database)
    {
        ThrowIfNotActive();
        MdbStat stat;
        LmdbException.ThrowIfFailed(LmdbNative.mdb_stat(_txn, database.Handle, &stat), "mdb_stat");
        return (long)stat.Entries;
    }

    public LmdbCursor OpenCursor(LmdbDatabase database)
    {
        ThrowIfNotActive();
        nint cursor;
        LmdbException.ThrowIfFailed(LmdbNative.mdb_cursor_open(_txn, database.Handle, &cursor), "mdb_cursor_open");
        return new LmdbCursor(this, cursor);
    }

    /// <summary>Commits; for a write transaction this returns after the data and meta pages are synced.</summary>
    public void Commit()
    {
        ThrowIfNotActive();
        var result = LmdbNative.mdb_txn_commit(_txn);

        // mdb_txn_commit frees the handle whether it succeeded or not.
        End();
        LmdbException.ThrowIfFailed(result, "mdb_txn_commit");
    }

    public void Abort()
    {
        if (_state == TransactionState.Ended)
        {
            return;
        }

        LmdbNative.mdb_txn_abort(_txn);
        End();
    }

    /// <summary>Releases the snapshot of a read transaction but keeps its handle and reader slot for <see cref="Renew"/>.</summary>
    public void Reset()
    {
        ThrowIfNotReadOnly();
        ThrowIfNotActive();
        LmdbNative.mdb_txn_reset(_txn);
        _state = TransactionState.Reset;
    }

    /// <summary>Takes a fresh snapshot with a reset read transaction.</summary>
    public void Renew()
    {
        ThrowIfNotReadOnly();
        if (_state != TransactionState.Reset)
        {
            throw new InvalidOperationException("Only a reset read transaction can be renewed.");
        }

        LmdbException.ThrowIfFailed(LmdbNative.mdb_txn_renew(_txn), "mdb_txn_renew");
        _state = TransactionState.Active;
    }

    public void Dispose() => Abort();

    private void End()
    {
        _txn = 0;
        _state = TransactionState.Ended;
        _environment.DangerousRelease();
    }

    private void ThrowIfNotActive()
    {
        if (_state != TransactionState.Active)
        {
            ThrowNotActive(_state);
        }
    }

    private void ThrowIfNotReadOnly()
    {
        if (!IsReadOnly)
        {
            throw new InvalidOperationException("Only read transactions can be reset and renewed.");
        }
    }

    private static void ThrowNotActive(TransactionState state) =>
        throw new InvalidOperationException($"The transaction is {state.ToString().ToLowerInvariant()}, not active.");
}
