using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting;

/// <summary>
/// The service's data directory, created if absent and held with an exclusive lock file for the
/// life of the process, so a second server pointed at the same directory fails at start-up
/// instead of corrupting the first one's files.
/// </summary>
public sealed class DataDirectory : IDisposable
{
    public const string LockFileName = "ingest.lock";

    private readonly FileStream _lock;

    public DataDirectory(IOptions<IngestOptions> options)
    {
        ArgumentNullException.ThrowIfNull(options);
        FullPath = Path.GetFullPath(options.Value.DataDirectory);
        try
        {
            Directory.CreateDirectory(FullPath);
            _lock = new FileStream(Path.Combine(FullPath, LockFileName), FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.None, 1, FileOptions.None);
        }
        catch (IOException ex)
        {
            throw new InvalidOperationException(
                $"Ingest:DataDirectory '{FullPath}' cannot be used: {ex.Message} (is another Ingest server using it?)", ex);
        }
        catch (UnauthorizedAccessException ex)
        {
            throw new InvalidOperationException($"Ingest:DataDirectory '{FullPath}' is not writable: {ex.Message}", ex);
        }
    }

    public string FullPath { get; }

    public void Dispose() => _lock.Dispose();
}
