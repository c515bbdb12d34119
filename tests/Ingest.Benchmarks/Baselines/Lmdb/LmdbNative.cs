using System.Runtime.InteropServices;

namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>
/// The subset of liblmdb's C API (0.9.x, Debian package liblmdb0) that the baseline needs.
/// Names and argument order follow lmdb.h so the LMDB documentation applies as written.
/// Every signature is blittable: no marshalling stubs, no per-call allocations.
/// </summary>
internal static unsafe partial class LmdbNative
{
    private const string Library = "liblmdb.so.0";

    public const int Success = 0;
    public const int NotFound = -30798;

    [LibraryImport(Library)]
    public static partial byte* mdb_version(int* major, int* minor, int* patch);

    [LibraryImport(Library)]
    public static partial byte* mdb_strerror(int err);

    [LibraryImport(Library)]
    public static partial int mdb_env_create(nint* env);

    [LibraryImport(Library)]
    public static partial int mdb_env_open(LmdbEnvironmentHandle env, byte* path, uint flags, uint mode);

    [LibraryImport(Library)]
    public static partial void mdb_env_close(nint env);

    [LibraryImport(Library)]
    public static partial int mdb_env_set_mapsize(LmdbEnvironmentHandle env, nuint size);

    [LibraryImport(Library)]
    public static partial int mdb_env_set_maxreaders(LmdbEnvironmentHandle env, uint readers);

    [LibraryImport(Library)]
    public static partial int mdb_env_set_maxdbs(LmdbEnvironmentHandle env, uint dbs);

    [LibraryImport(Library)]
    public static partial int mdb_env_sync(LmdbEnvironmentHandle env, int force);

    [LibraryImport(Library)]
    public static partial int mdb_txn_begin(LmdbEnvironmentHandle env, nint parent, uint flags, nint* txn);

    [LibraryImport(Library)]
    public static partial int mdb_txn_commit(nint txn);

    [LibraryImport(Library)]
    public static partial void mdb_txn_abort(nint txn);

    [LibraryImport(Library)]
    public static partial void mdb_txn_reset(nint txn);

    [LibraryImport(Library)]
    public static partial int mdb_txn_renew(nint txn);

    [LibraryImport(Library)]
    public static partial int mdb_dbi_open(nint txn, byte* name, uint flags, uint* dbi);

    [LibraryImport(Library)]
    public static partial int mdb_stat(nint txn, uint dbi, MdbStat* stat);

    [LibraryImport(Library)]
    public static partial int mdb_get(nint txn, uint dbi, MdbVal* key, MdbVal* data);

    [LibraryImport(Library)]
    public static partial int mdb_put(nint txn, uint dbi, MdbVal* key, MdbVal* data, uint flags);

    [LibraryImport(Library)]
    public static partial int mdb_del(nint txn, uint dbi, MdbVal* key, MdbVal* data);

    [LibraryImport(Library)]
    public static partial int mdb_cursor_open(nint txn, uint dbi, nint* cursor);

    [LibraryImport(Library)]
    public static partial void mdb_cursor_close(nint cursor);

    [LibraryImport(Library)]
    public static partial int mdb_cursor_get(nint cursor, MdbVal* key, MdbVal* data, LmdbCursorOp op);

    [LibraryImport(Library)]
    public static partial int mdb_cursor_del(nint cursor, uint flags);
}
