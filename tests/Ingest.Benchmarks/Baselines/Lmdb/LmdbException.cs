using System.Runtime.InteropServices;

namespace Ingest.Benchmarks.Baselines.Lmdb;

internal sealed class LmdbException : Exception
{
    public LmdbException()
    {
    }

    public LmdbException(string message)
        : base(message)
    {
    }

    public LmdbException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public LmdbException(string function, int errorCode)
        : base($"{function} failed with {errorCode}: {Describe(errorCode)}")
    {
        ErrorCode = errorCode;
    }

    public int ErrorCode { get; }

    public static void ThrowIfFailed(int result, string function)
    {
        if (result != LmdbNative.Success)
        {
            Throw(result, function);
        }
    }

    private static void Throw(int result, string function) => throw new LmdbException(function, result);

    private static unsafe string Describe(int errorCode) =>
        Marshal.PtrToStringUTF8((nint)LmdbNative.mdb_strerror(errorCode)) ?? "unknown error";
}
