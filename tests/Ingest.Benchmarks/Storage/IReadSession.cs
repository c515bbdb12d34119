namespace Ingest.Benchmarks.Storage;

/// <summary>One thread's reader. Opening and closing a read transaction on it should not allocate.</summary>
internal interface IReadSession : IDisposable
{
    /// <summary>Opens a read transaction on the latest committed snapshot.</summary>
    void BeginRead();

    void EndRead();

    /// <summary>Copies the value of <paramref name="key"/> into <paramref name="destination"/>; returns its length, or -1 if the key is absent.</summary>
    int Read(TreeId tree, ReadOnlySpan<byte> key, Span<byte> destination);
}
