namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>
/// An <c>MDB_cursor*</c>, valid while its transaction is active. LMDB frees the cursors of a write
/// transaction when it ends, and leaves those of a read transaction to the caller; Dispose follows that rule.
/// </summary>
internal sealed unsafe class LmdbCursor : IDisposable
{
    private readonly LmdbTransaction _transaction;
    private nint _cursor;

    internal LmdbCursor(LmdbTransaction transaction, nint cursor)
    {
        _transaction = transaction;
        _cursor = cursor;
    }

    /// <summary>Positions at the first key greater than or equal to <paramref name="key"/>.</summary>
    public bool SeekAtLeast(ReadOnlySpan<byte> key, out ReadOnlySpan<byte> foundKey, out ReadOnlySpan<byte> value)
    {
        fixed (byte* keyBytes = key)
        {
            var keyVal = new MdbVal(keyBytes, key.Length);
            return Get(&keyVal, LmdbCursorOp.SetRange, out foundKey, out value);
        }
    }

    /// <summary>Positions at exactly <paramref name="key"/>. LMDB searches the current leaf first, so ascending seeks stay cheap.</summary>
    public bool Seek(ReadOnlySpan<byte> key)
    {
        fixed (byte* keyBytes = key)
        {
            var keyVal = new MdbVal(keyBytes, key.Length);
            return Get(&keyVal, LmdbCursorOp.Set, out _, out _);
        }
    }

    public bool First(out ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        var keyVal = default(MdbVal);
        return Get(&keyVal, LmdbCursorOp.First, out key, out value);
    }

    public bool Next(out ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        var keyVal = default(MdbVal);
        return Get(&keyVal, LmdbCursorOp.Next, out key, out value);
    }

    /// <summary>Deletes the entry under the cursor; the cursor then rests on the next entry.</summary>
    public void DeleteCurrent()
    {
        ThrowIfUnusable();
        LmdbException.ThrowIfFailed(LmdbNative.mdb_cursor_del(_cursor, 0), "mdb_cursor_del");
    }

    public void Dispose()
    {
        if (_cursor == 0)
        {
            return;
        }

        if (_transaction.IsReadOnly || _transaction.IsActive)
        {
            LmdbNative.mdb_cursor_close(_cursor);
        }

        _cursor = 0;
    }

    /// <summary>On success LMDB points <paramref name="keyVal"/> and the value at the entry, inside the map.</summary>
    private bool Get(MdbVal* keyVal, LmdbCursorOp op, out ReadOnlySpan<byte> key, out ReadOnlySpan<byte> value)
    {
        ThrowIfUnusable();
        MdbVal dataVal;
        var result = LmdbNative.mdb_cursor_get(_cursor, keyVal, &dataVal, op);

        if (result == LmdbNative.NotFound)
        {
            key = default;
            value = default;
            return false;
        }

        LmdbException.ThrowIfFailed(result, "mdb_cursor_get");
        key = keyVal->AsSpan();
        value = dataVal.AsSpan();
        return true;
    }

    private void ThrowIfUnusable()
    {
        ObjectDisposedException.ThrowIf(_cursor == 0, this);
        if (!_transaction.IsActive)
        {
            throw new InvalidOperationException("The cursor's transaction is no longer active.");
        }
    }
}
