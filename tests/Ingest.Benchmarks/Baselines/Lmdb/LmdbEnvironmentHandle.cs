using Microsoft.Win32.SafeHandles;

namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>
/// Owns an <c>MDB_env*</c>. Every live transaction holds a reference on this handle
/// (<see cref="System.Runtime.InteropServices.SafeHandle.DangerousAddRef"/>), so
/// <c>mdb_env_close</c> runs only after the last transaction ended, as LMDB requires.
/// </summary>
internal sealed class LmdbEnvironmentHandle : SafeHandleZeroOrMinusOneIsInvalid
{
    public LmdbEnvironmentHandle()
        : base(ownsHandle: true)
    {
    }

    public static unsafe LmdbEnvironmentHandle Create()
    {
        nint env;
        LmdbException.ThrowIfFailed(LmdbNative.mdb_env_create(&env), "mdb_env_create");
        var handle = new LmdbEnvironmentHandle();
        handle.SetHandle(env);
        return handle;
    }

    protected override bool ReleaseHandle()
    {
        LmdbNative.mdb_env_close(handle);
        return true;
    }
}
