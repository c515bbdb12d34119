using Ingest.Benchmarks.Storage;

namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>
/// LMDB with its durable defaults: every commit writes the dirty pages, fdatasyncs, writes the
/// meta page and fdatasyncs again. Trees are named databases. Reads copy values out of the map.
/// </summary>
internal sealed class LmdbStorageSystem : IKeyValueStore
{
    private readonly LmdbEnvironment _environment;
    private readonly List<LmdbDatabase> _trees = [];

    public LmdbStorageSystem(string directory) =>
        _environment = LmdbEnvironment.Open(directory, new LmdbEnvironmentOptions());

    public string Name => "lmdb";

    public string Description => $"LMDB {LmdbEnvironment.Version} (liblmdb.so.0), durable defaults: data and meta page synced on every commit";

    public TreeId OpenTree(string name)
    {
        _trees.Add(_environment.OpenDatabase(name));
        return new TreeId(_trees.Count - 1);
    }

    public IWriteTransaction BeginWrite() => new WriteTransaction(this, _environment.BeginWrite());

    public IReadSession OpenReadSession() => new ReadSession(this, _environment.BeginRead());

    public void Dispose() => _environment.Dispose();

    private LmdbDatabase Database(TreeId tree) => _trees[tree.Value];

    private sealed class WriteTransaction(LmdbStorageSystem system, LmdbTransaction transaction) : IWriteTransaction
    {
        public void Put(TreeId tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) =>
            transaction.Put(system.Database(tree), key, value);

        public bool Delete(TreeId tree, ReadOnlySpan<byte> key) => transaction.Delete(system.Database(tree), key);

        /// <summary>
        /// LMDB has no batch delete. Its best use of sorted input is one cursor: MDB_SET on a
        /// positioned cursor searches the current leaf before descending from the root.
        /// </summary>
        public int DeleteSorted(TreeId tree, FixedSizeRecords sortedKeys)
        {
            ArgumentNullException.ThrowIfNull(sortedKeys);
            var deleted = 0;
            using var cursor = transaction.OpenCursor(system.Database(tree));
            for (var i = 0; i < sortedKeys.Count; i++)
            {
                if (cursor.Seek(sortedKeys[i]))
                {
                    cursor.DeleteCurrent();
                    deleted++;
                }
            }

            return deleted;
        }

        public void Commit() => transaction.Commit();

        public void Dispose() => transaction.Dispose();
    }

    /// <summary>One read transaction per session, created once; Begin/End are mdb_txn_renew/mdb_txn_reset.</summary>
    private sealed class ReadSession : IReadSession
    {
        private readonly LmdbStorageSystem _system;
        private readonly LmdbTransaction _transaction;

        public ReadSession(LmdbStorageSystem system, LmdbTransaction transaction)
        {
            _system = system;
            _transaction = transaction;
            _transaction.Reset();
        }

        public void BeginRead() => _transaction.Renew();

        public void EndRead() => _transaction.Reset();

        public int Read(TreeId tree, ReadOnlySpan<byte> key, Span<byte> destination)
        {
            if (!_transaction.TryGet(_system.Database(tree), key, out var value))
            {
                return -1;
            }

            value.CopyTo(destination);
            return value.Length;
        }

        public void Dispose() => _transaction.Dispose();
    }
}
