using System.Diagnostics;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>A tmpfs of a few megabytes mounted on a fresh directory, unmounted on dispose: a disk that really fills up.</summary>
internal sealed class SmallTmpfs : IDisposable
{
    private SmallTmpfs(string path) => Path = path;

    public string Path { get; }

    /// <summary>The mounted file system, or null (and a line on <paramref name="output"/>) where this process may not mount one.</summary>
    public static SmallTmpfs? TryMount(int megabytes, ITestOutputHelper output)
    {
        var path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), $"ingest-tmpfs-{Guid.NewGuid():N}");
        Directory.CreateDirectory(path);
        if (!OperatingSystem.IsLinux() || Run("mount", $"-t tmpfs -o size={megabytes}m tmpfs {path}") is { } error)
        {
            Directory.Delete(path);
            output.WriteLine($"not run: this process cannot mount a tmpfs (needs Linux and root or CAP_SYS_ADMIN): {(OperatingSystem.IsLinux() ? "mount failed" : "not Linux")}");
            return null;
        }

        return new SmallTmpfs(path);
    }

    /// <summary>Writes a file of zeros (real blocks, not a sparse file) until the file system has <paramref name="freeBytes"/> left.</summary>
    public void FillLeaving(string file, long freeBytes)
    {
        var free = new DriveInfo(Path).AvailableFreeSpace;
        var size = free - freeBytes;
        var zeros = new byte[1024 * 1024];
        using var stream = new FileStream(file, FileMode.CreateNew, FileAccess.Write);
        for (long written = 0; written < size; written += zeros.Length)
        {
            stream.Write(zeros, 0, (int)Math.Min(zeros.Length, size - written));
        }
    }

    public void Dispose()
    {
        Run("umount", $"-l {Path}");
        try
        {
            Directory.Delete(Path, recursive: true);
        }
        catch (IOException)
        {
            // Lazily unmounted: the directory goes once the last file handle does.
        }
    }

    /// <summary>Runs a command; null when it succeeded, else what it printed.</summary>
    private static string? Run(string command, string arguments)
    {
        try
        {
            using var process = Process.Start(new ProcessStartInfo(command, arguments) { RedirectStandardError = true, RedirectStandardOutput = true })!;
            var error = process.StandardError.ReadToEnd();
            process.WaitForExit();
            return process.ExitCode == 0 ? null : error;
        }
        catch (System.ComponentModel.Win32Exception ex)
        {
            return ex.Message;
        }
    }
}
