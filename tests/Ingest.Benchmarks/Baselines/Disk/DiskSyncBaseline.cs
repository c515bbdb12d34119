using System.Runtime.InteropServices;
using Ingest.Benchmarks.Storage;
using Microsoft.Win32.SafeHandles;

namespace Ingest.Benchmarks.Baselines.Disk;

/// <summary>
/// The raw disk: append a 4 KiB block to a file and fdatasync it. Appending grows the file, so the
/// sync also carries the size change, as a journal append would; no database commits faster than this.
/// </summary>
internal sealed partial class DiskSyncBaseline : IDurableAppendLog
{
    private readonly SafeFileHandle _file;
    private long _length;

    public DiskSyncBaseline(string directory) =>
        _file = File.OpenHandle(Path.Combine(directory, "fdatasync.log"), FileMode.CreateNew, FileAccess.Write);

    public string Name => "disk";

    public string Description => "append 4 KiB to a file with pwrite, then fdatasync";

    public void AppendDurably(ReadOnlySpan<byte> block)
    {
        RandomAccess.Write(_file, block, _length);
        _length += block.Length;
        DataSync(_file);
    }

    public void Dispose() => _file.Dispose();

    private static void DataSync(SafeFileHandle file)
    {
        var added = false;
        file.DangerousAddRef(ref added);
        try
        {
            if (fdatasync((int)file.DangerousGetHandle()) != 0)
            {
                throw new IOException($"fdatasync failed: {Marshal.GetPInvokeErrorMessage(Marshal.GetLastPInvokeError())}");
            }
        }
        finally
        {
            file.DangerousRelease();
        }
    }

    [LibraryImport("libc.so.6", SetLastError = true)]
    private static partial int fdatasync(int fd);
}
