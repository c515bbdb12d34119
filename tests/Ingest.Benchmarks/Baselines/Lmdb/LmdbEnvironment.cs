using System.Text;

namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>
/// An open LMDB environment (one directory holding data.mdb and lock.mdb).
/// Write transactions are bound to the thread that began them (LMDB holds the writer mutex
/// in that thread); read transactions, with <see cref="LmdbEnvironmentFlags.NoTls"/>, are not.
/// </summary>
internal sealed class LmdbEnvironment : IDisposable
{
    private const uint CreateDatabase = 0x40000;
    private const uint FileMode0644 = 0b110_100_100;

    private readonly LmdbEnvironmentHandle _handle;

    private LmdbEnvironment(LmdbEnvironmentHandle handle) => _handle = handle;

    public static unsafe string Version
    {
        get
        {
            int major, minor, patch;
            LmdbNative.mdb_version(&major, &minor, &patch);
            return $"{major}.{minor}.{patch}";
        }
    }

    public static unsafe LmdbEnvironment Open(string directory, LmdbEnvironmentOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var handle = LmdbEnvironmentHandle.Create();
        try
        {
            LmdbException.ThrowIfFailed(LmdbNative.mdb_env_set_mapsize(handle, checked((nuint)options.MapSize)), "mdb_env_set_mapsize");
            LmdbException.ThrowIfFailed(LmdbNative.mdb_env_set_maxreaders(handle, checked((uint)options.MaxReaders)), "mdb_env_set_maxreaders");
            LmdbException.ThrowIfFailed(LmdbNative.mdb_env_set_maxdbs(handle, checked((uint)options.MaxDatabases)), "mdb_env_set_maxdbs");
            fixed (byte* path = NullTerminated(directory))
            {
                LmdbException.ThrowIfFailed(LmdbNative.mdb_env_open(handle, path, (uint)options.Flags, FileMode0644), "mdb_env_open");
            }
        }
        catch
        {
            // mdb_env_open's contract: on failure the handle must still be closed.
            handle.Dispose();
            throw;
        }

        return new LmdbEnvironment(handle);
    }

    /// <summary>Begins the (single) write transaction. Commit is durable unless the environment was opened with NoSync.</summary>
    public LmdbTransaction BeginWrite() => LmdbTransaction.Begin(_handle, readOnly: false);

    /// <summary>Begins a read transaction. Keep it and use Reset/Renew to avoid the allocation of a new one.</summary>
    public LmdbTransaction BeginRead() => LmdbTransaction.Begin(_handle, readOnly: true);

    /// <summary>Opens a named database, creating it if needed, in a transaction of its own.</summary>
    public LmdbDatabase OpenDatabase(string name)
    {
        using var transaction = BeginWrite();
        var database = transaction.OpenDatabase(name, CreateDatabase);
        transaction.Commit();
        return database;
    }

    public void Dispose() => _handle.Dispose();

    internal static byte[] NullTerminated(string value)
    {
        var bytes = new byte[Encoding.UTF8.GetByteCount(value) + 1];
        Encoding.UTF8.GetBytes(value, bytes);
        return bytes;
    }
}
