namespace Ingest.Benchmarks.Storage;

/// <summary>
/// A system under test, opened on an empty directory of its own with its durable settings.
/// What it can do is expressed by the capability interfaces it implements
/// (<see cref="IKeyValueStore"/>, <see cref="IPostingListStore"/>, <see cref="IDurableAppendLog"/>);
/// a workload that needs a capability the system lacks reports "n/a" rather than a number.
/// </summary>
internal interface IStorageSystem : IDisposable
{
    /// <summary>The name in the table and in JSON: ingest, lmdb, sqlite or disk.</summary>
    string Name { get; }

    /// <summary>Version and the settings that matter for the figures, printed before its run.</summary>
    string Description { get; }
}
