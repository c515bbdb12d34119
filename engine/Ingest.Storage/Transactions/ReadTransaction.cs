using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Trees;

namespace Ingest.Storage;

/// <summary>
/// A stable snapshot of the last commit before it began. Any number run concurrently with each
/// other and with the writer. A struct: beginning one allocates nothing. Spans it returns stay
/// valid until it is disposed; using it (or a copy of it) after disposal throws.
/// </summary>
public readonly struct ReadTransaction : IDisposable, IEquatable<ReadTransaction>
{
    private readonly StorageEnvironment? _env;
    private readonly Transactions.Snapshot? _snapshot;
    private readonly int _slot;
    private readonly long _token;

    internal ReadTransaction(StorageEnvironment env, Transactions.Snapshot snapshot, int slot, long token)
    {
        _env = env;
        _snapshot = snapshot;
        _slot = slot;
        _token = token;
    }

    /// <summary>The id of the commit this transaction sees.</summary>
    public long TransactionId
    {
        get
        {
            EnsureActive();
            return _snapshot!.TxId;
        }
    }

    internal Transactions.PageSource Pages
    {
        get
        {
            EnsureActive();
            return new Transactions.PageSource(_env!, _snapshot!, _slot, _token);
        }
    }

    /// <summary>The snapshot this transaction reads (a backup copies its pages).</summary>
    internal Transactions.Snapshot Snapshot
    {
        get
        {
            EnsureActive();
            return _snapshot!;
        }
    }

    /// <summary>Opens a named tree, or returns null if it does not exist in this snapshot.</summary>
    public Tree? OpenTree(string name) => TreeDirectory.OpenTree(Pages, name);

    /// <summary>Opens a named fixed-size tree, or returns null if it does not exist in this snapshot.</summary>
    public FixedSizeTree? OpenFixedSizeTree(string name) => TreeDirectory.OpenFixedSizeTree(Pages, name);

    /// <summary>Opens a named posting list, or returns null if it does not exist in this snapshot.</summary>
    public PostingList? OpenPostingList(string name) => TreeDirectory.OpenPostingList(Pages, name);

    internal void EnsureActive()
    {
        if (_env is null || !_env.IsReaderActive(_slot, _token))
        {
            throw new ObjectDisposedException(nameof(ReadTransaction));
        }
    }

    public void Dispose() => _env?.ReleaseReader(_slot, _token);

    public bool Equals(ReadTransaction other) => ReferenceEquals(_env, other._env) && _slot == other._slot && _token == other._token;

    public override bool Equals(object? obj) => obj is ReadTransaction other && Equals(other);

    public override int GetHashCode() => HashCode.Combine(_slot, _token);

    public static bool operator ==(ReadTransaction left, ReadTransaction right) => left.Equals(right);

    public static bool operator !=(ReadTransaction left, ReadTransaction right) => !left.Equals(right);
}
