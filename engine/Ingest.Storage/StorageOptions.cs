namespace Ingest.Storage;

/// <summary>Options of a <see cref="StorageEnvironment"/>; validated when the environment opens.</summary>
public sealed class StorageOptions
{
    /// <summary>How commits are made durable. <see cref="SyncMode.Durable"/> by default.</summary>
    public SyncMode SyncMode { get; set; } = SyncMode.Durable;

    /// <summary>
    /// The most a journal file gets (a larger commit gets a file of its own). 64 MiB by default. Files start at
    /// <see cref="InitialJournalFileSize"/> and double while they fill within seconds, so an environment that
    /// is written slowly (an index of a quiet collection) keeps small files.
    /// </summary>
    public long JournalFileSize { get; set; } = 64L * 1024 * 1024;

    /// <summary>
    /// The size of an environment's first journal file, and the least any gets. 64 KiB by default (every index is an
    /// environment of its own); at most <see cref="JournalFileSize"/>.
    /// </summary>
    public long InitialJournalFileSize { get; set; } = 64 * 1024;

    /// <summary>The first journal file's size as used: <see cref="InitialJournalFileSize"/>, capped at <see cref="JournalFileSize"/>.</summary>
    internal long EffectiveInitialJournalFileSize => Math.Min(InitialJournalFileSize, JournalFileSize);

    /// <summary>
    /// The background flusher runs when this many committed pages wait in scratch memory,
    /// or when <see cref="FlushInterval"/> has passed since the last flush. 16,384 (64 MiB of pages) by default: at 4,096
    /// batched random puts into a large id index reached it every 3-4 commits and wrote most of the index's leaves
    /// again each time (issue 30: a third fewer bytes written and about 1.4x the puts per second at 16,384).
    /// </summary>
    public int FlushThresholdPages { get; set; } = 16384;

    /// <summary>Longest time committed pages wait before the background flusher writes them to the data file.</summary>
    public TimeSpan FlushInterval { get; set; } = TimeSpan.FromSeconds(1);

    /// <summary>
    /// Open even though the journal is damaged (a journal file missing, empty or truncated), replaying
    /// up to the damage and discarding every later transaction. Off by default: such damage makes
    /// <see cref="StorageEnvironment.Open"/> throw a <see cref="StorageCorruptionException"/> naming the
    /// file, offset and the transactions at risk. What was given up is in
    /// <see cref="StorageEnvironment.AcceptedJournalLoss"/>; log it.
    /// </summary>
    public bool AcceptJournalLoss { get; set; }

    /// <summary>
    /// Create a new environment as an unjournaled build: commits are published and written to the data file by the
    /// flusher, never journaled or synced one by one, until <see cref="StorageEnvironment.TryFinishBuild"/> (or a clean
    /// close) makes the data file durable. A crash before then discards the environment's content: the next open finds
    /// it empty. For derived data its owner can produce again (an index being built). Off by default; ignored for an
    /// environment whose data file already exists and whose build finished.
    /// </summary>
    public bool UnjournaledBuild { get; set; }

    /// <summary>A copy of these options, test seams included (an owner that needs another setting leaves its caller's instance alone).</summary>
    public StorageOptions Clone() => (StorageOptions)MemberwiseClone();

    /// <summary>Tests make writes fail as on a full disk from the open on (the environment's <c>Faults</c> is this one).</summary>
    internal Paging.WriteFaults? Faults { get; set; }

    /// <summary>Tests turn the background flusher off to keep records in the journal.</summary>
    internal bool BackgroundFlush { get; set; } = true;

    internal void Validate()
    {
        if (SyncMode is not (SyncMode.Durable or SyncMode.NoSyncUnsafe))
        {
            throw new ArgumentOutOfRangeException(nameof(SyncMode), SyncMode, "Unknown sync mode.");
        }

        if (JournalFileSize < 64 * 1024 || JournalFileSize % 4096 != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(JournalFileSize), JournalFileSize, "Journal files must be at least 64 KiB and a multiple of 4 KiB.");
        }

        if (InitialJournalFileSize < 64 * 1024 || InitialJournalFileSize % 4096 != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(InitialJournalFileSize), InitialJournalFileSize, "Journal files must be at least 64 KiB and a multiple of 4 KiB.");
        }

        if (FlushThresholdPages < 1)
        {
            throw new ArgumentOutOfRangeException(nameof(FlushThresholdPages), FlushThresholdPages, "Must be positive.");
        }

        if (FlushInterval <= TimeSpan.Zero)
        {
            throw new ArgumentOutOfRangeException(nameof(FlushInterval), FlushInterval, "Must be positive.");
        }
    }
}
