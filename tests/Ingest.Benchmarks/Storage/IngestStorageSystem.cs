using Ingest.Storage;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Trees;

namespace Ingest.Benchmarks.Storage;

/// <summary>
/// The Ingest storage engine with its durable default: one journal write and one fdatasync per commit.
/// Trees are named trees of one environment.
/// </summary>
internal sealed class IngestStorageSystem : IKeyValueStore, IPostingListStore
{
    private readonly StorageEnvironment _environment;
    private readonly List<string> _trees = [];

    public IngestStorageSystem(string directory) =>
        _environment = StorageEnvironment.Open(directory, new Ingest.Storage.StorageOptions { SyncMode = SyncMode.Durable });

    public string Name => "ingest";

    public string Description => "Ingest.Storage, SyncMode.Durable: one journal record and one fdatasync per commit";

    public TreeId OpenTree(string name)
    {
        using (var tx = _environment.BeginWrite())
        {
            tx.CreateTree(name);
            tx.Commit();
        }

        _trees.Add(name);
        return new TreeId(_trees.Count - 1);
    }

    public IWriteTransaction BeginWrite() => new WriteTransaction(this, _environment.BeginWrite());

    public IReadSession OpenReadSession() => new ReadSession(this);

    public void Dispose() => _environment.Dispose();

    /// <summary>Scratch pages handed out that faulted in on first touch (fresh, or released to the kernel earlier): what zeroing costs a write.</summary>
    public long ColdScratchPages => _environment.Scratch.FreshPages + _environment.Scratch.ReleasedPagesReused;

    public void Settle()
    {
        var deadline = DateTime.UtcNow.AddMinutes(2);
        while (_environment.FlushBacklogPages > 0)
        {
            if (DateTime.UtcNow > deadline)
            {
                throw new TimeoutException($"the flusher still holds {_environment.FlushBacklogPages} pages after 2 minutes");
            }

            Thread.Sleep(5);
        }

        // The backlog reads 0 as soon as the flush unlinks its pages; this waits (on the flush lock) for the rest of
        // that flush: handing the pages back to the scratch pool, the header sync. A write started before that ran on
        // fresh pages while the pool refilled beside it.
        _environment.FlushNow();
    }

    public void AddSorted(string list, ReadOnlySpan<long> sortedIds)
    {
        using var tx = _environment.BeginWrite();
        tx.CreatePostingList(list).Update(sortedIds, []);
        tx.Commit();
    }

    public PostingListScan Scan(string list)
    {
        using var read = _environment.BeginRead();
        var ids = (read.OpenPostingList(list) ?? throw new InvalidOperationException($"posting list {list} does not exist")).Iterate();
        Span<long> buffer = stackalloc long[1024];
        long count = 0, sum = 0;
        for (int n; (n = ids.Fill(buffer)) > 0;)
        {
            count += n;
            foreach (var id in buffer[..n])
            {
                sum += id;
            }
        }

        return new PostingListScan(count, sum);
    }

    /// <summary>Whole pages: the leaves plus the index over them (one page while it fits).</summary>
    public long SizeInBytes(string list)
    {
        using var read = _environment.BeginRead();
        var stored = read.OpenPostingList(list) ?? throw new InvalidOperationException($"posting list {list} does not exist");
        return (stored.LeafCount + 1) * 8192;
    }

    public void RemoveSorted(string list, ReadOnlySpan<long> sortedIds)
    {
        using var tx = _environment.BeginWrite();
        tx.CreatePostingList(list).Update([], sortedIds);
        tx.Commit();
    }

    public void RemoveOneByOne(string list, ReadOnlySpan<long> ids)
    {
        using var tx = _environment.BeginWrite();
        var stored = tx.CreatePostingList(list);
        foreach (var id in ids)
        {
            stored.Remove(id);
        }

        tx.Commit();
    }

    private sealed class WriteTransaction(IngestStorageSystem system, Ingest.Storage.WriteTransaction transaction) : IWriteTransaction
    {
        // Tree handles live as long as the transaction; opened on first use.
        private readonly Tree?[] _open = new Tree?[system._trees.Count];

        public void Put(TreeId tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value) => Tree(tree).Put(key, value);

        public bool Delete(TreeId tree, ReadOnlySpan<byte> key) => Tree(tree).Delete(key);

        /// <summary>The engine's ordered batch delete: each leaf is found once for all of its keys.</summary>
        public int DeleteSorted(TreeId tree, FixedSizeRecords sortedKeys)
        {
            ArgumentNullException.ThrowIfNull(sortedKeys);
            return checked((int)Tree(tree).DeleteSorted(sortedKeys.AsSpan(), sortedKeys.RecordSize));
        }

        public void Commit() => transaction.Commit();

        public void Dispose() => transaction.Dispose();

        private Tree Tree(TreeId tree) =>
            _open[tree.Value] ??= transaction.OpenTree(system._trees[tree.Value])
                ?? throw new InvalidOperationException($"tree {system._trees[tree.Value]} does not exist");
    }

    /// <summary>Begin/End open and close a read transaction (a struct: no allocation).</summary>
    private sealed class ReadSession(IngestStorageSystem system) : IReadSession
    {
        private readonly Tree?[] _open = new Tree?[system._trees.Count];
        private ReadTransaction _transaction;

        public void BeginRead()
        {
            _transaction = system._environment.BeginRead();
            Array.Clear(_open);
        }

        public void EndRead() => _transaction.Dispose();

        public int Read(TreeId tree, ReadOnlySpan<byte> key, Span<byte> destination)
        {
            var handle = _open[tree.Value] ??= _transaction.OpenTree(system._trees[tree.Value])
                ?? throw new InvalidOperationException($"tree {system._trees[tree.Value]} does not exist");
            if (!handle.TryGet(key, out var value))
            {
                return -1;
            }

            value.CopyTo(destination);
            return value.Length;
        }

        public void Dispose()
        {
        }
    }
}
