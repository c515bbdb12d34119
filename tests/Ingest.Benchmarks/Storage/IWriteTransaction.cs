namespace Ingest.Benchmarks.Storage;

/// <summary>A write transaction; disposing it without <see cref="Commit"/> rolls it back.</summary>
internal interface IWriteTransaction : IDisposable
{
    /// <summary>Inserts or overwrites.</summary>
    void Put(TreeId tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value);

    /// <summary>Removes one key; false when it was absent.</summary>
    bool Delete(TreeId tree, ReadOnlySpan<byte> key);

    /// <summary>
    /// Removes keys given in ascending byte order, using the system's batch path if it has one
    /// (the baselines have none and walk the sorted keys with their best single-key primitive).
    /// Returns how many were present.
    /// </summary>
    int DeleteSorted(TreeId tree, FixedSizeRecords sortedKeys);

    /// <summary>Returns once the transaction is durable: it survives a crash or power loss from then on.</summary>
    void Commit();
}
