using Ingest.Storage.Paging;

namespace Ingest.Storage;

/// <summary>
/// Replaces a file so that after a crash or a power failure it holds either its old content or the new, never a mix
/// and never neither: the content goes to a temporary file beside the target, which is synced, renamed over the
/// target, and then the directory is synced so that the rename itself is on disk. Until <see cref="Commit"/> renames,
/// the target is untouched; disposing a writer that did not commit deletes the temporary file.
/// <code>
/// using var file = DurableFileWriter.Create(path);
/// JsonSerializer.Serialize(file.Stream, value, typeInfo);
/// file.Commit();
/// </code>
/// </summary>
public sealed class DurableFileWriter : IDisposable
{
    private readonly FileStream _stream;
    private bool _closed;
    private bool _committed;
    private bool _disposed;

    private DurableFileWriter(string path, string temporaryPath, FileStream stream)
    {
        Path = path;
        TemporaryPath = temporaryPath;
        _stream = stream;
    }

    /// <summary>The file <see cref="Commit"/> replaces.</summary>
    public string Path { get; }

    /// <summary>Where the content is written until <see cref="Commit"/>: the target's path and a suffix, in the same directory so the rename stays on one file system.</summary>
    public string TemporaryPath { get; }

    /// <summary>Write the new content here, before <see cref="Flush"/> or <see cref="Commit"/>.</summary>
    public Stream Stream => _closed ? throw new InvalidOperationException("The temporary file is already flushed and closed.") : _stream;

    /// <summary>Test seam: told each step of <see cref="Commit"/> once it is done; throwing from it fails the commit there.</summary>
    internal Action<DurableFileStep>? StepCompleted { get; set; }

    /// <summary>Starts replacing <paramref name="path"/>: creates (or truncates) the temporary file <paramref name="path"/> + <paramref name="temporarySuffix"/>.</summary>
    public static DurableFileWriter Create(string path, string temporarySuffix = ".tmp", int bufferSize = 4096, bool useAsync = false)
    {
        ArgumentException.ThrowIfNullOrEmpty(path);
        ArgumentException.ThrowIfNullOrEmpty(temporarySuffix);
        path = System.IO.Path.GetFullPath(path);
        var temporary = path + temporarySuffix;
        var stream = new FileStream(temporary, FileMode.Create, FileAccess.Write, FileShare.None, bufferSize, useAsync);
        return new DurableFileWriter(path, temporary, stream);
    }

    /// <summary>
    /// Syncs the temporary file and closes it, leaving the target untouched: what was written can be read back from
    /// <see cref="TemporaryPath"/> before <see cref="Commit"/> (a backup checks what it received). Commit does this itself otherwise.
    /// </summary>
    public void Flush()
    {
        ObjectDisposedException.ThrowIf(_committed || _disposed, this);
        if (_closed)
        {
            return;
        }

        _stream.Flush(flushToDisk: true);
        _stream.Dispose();
        _closed = true;
        StepCompleted?.Invoke(DurableFileStep.TemporaryFileSynced);
    }

    /// <summary>Flushes if not done yet, renames the temporary file over the target and syncs the directory.</summary>
    public void Commit()
    {
        Flush();
        File.Move(TemporaryPath, Path, overwrite: true);
        _committed = true;
        StepCompleted?.Invoke(DurableFileStep.Renamed);
        if (FileSync.SyncDirectory(System.IO.Path.GetDirectoryName(Path)!))
        {
            StepCompleted?.Invoke(DurableFileStep.DirectorySynced);
        }
    }

    /// <summary>Without a <see cref="Commit"/>: closes and deletes the temporary file (best effort: a failure to delete is not thrown over the one that got here).</summary>
    public void Dispose()
    {
        if (_committed || _disposed)
        {
            return;
        }

        _disposed = true;
        _closed = true;
        try
        {
            _stream.Dispose(); // may try to write what is still buffered: abandoned content, so its failure is not news
        }
        catch (IOException)
        {
        }

        try
        {
            File.Delete(TemporaryPath);
        }
        catch (IOException)
        {
        }
        catch (UnauthorizedAccessException)
        {
        }
    }
}
