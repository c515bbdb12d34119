namespace Ingest.Storage;

/// <summary>The steps of <see cref="DurableFileWriter.Commit"/>, reported to its test seam as each one completes.</summary>
internal enum DurableFileStep
{
    /// <summary>The temporary file's content is on disk and the file is closed; the target is untouched.</summary>
    TemporaryFileSynced,

    /// <summary>The temporary file is renamed over the target.</summary>
    Renamed,

    /// <summary>The directory is synced, so the rename survives a power failure (only reported where it happened).</summary>
    DirectorySynced,
}
