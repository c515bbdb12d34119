namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// The state one system carries from workload to workload. Workloads run in the order listed, but a
/// filtered run may skip the one that builds a prerequisite; the Ensure methods then build it, off the clock.
/// </summary>
internal sealed class WorkloadContext(StorageDataset data, TextWriter log)
{
    public const string LoadedTreeName = "loaded";
    public const string PostingListName = "postings";

    private TreeId? _loadedTree;
    private bool _postingListLoaded;

    public StorageDataset Data { get; } = data;

    /// <summary>Progress lines, beside the table.</summary>
    public TextWriter Log { get; } = log;

    public StorageSizes Sizes => Data.Sizes;

    public void MarkLoaded(TreeId tree) => _loadedTree = tree;

    /// <summary>The tree holding <see cref="StorageDataset.Loaded"/>, loading it if bulk-load did not run.</summary>
    public TreeId EnsureLoadedTree(IKeyValueStore store)
    {
        ArgumentNullException.ThrowIfNull(store);
        if (_loadedTree is { } tree)
        {
            return tree;
        }

        tree = store.OpenTree(LoadedTreeName);
        LoadInOneTransaction(store, tree, Data.Loaded);
        _loadedTree = tree;
        return tree;
    }

    public void MarkPostingListLoaded() => _postingListLoaded = true;

    public void EnsurePostingList(IPostingListStore store)
    {
        ArgumentNullException.ThrowIfNull(store);
        if (!_postingListLoaded)
        {
            store.AddSorted(PostingListName, Data.PostingLists.Ids);
            _postingListLoaded = true;
        }
    }

    public static void LoadInOneTransaction(IKeyValueStore store, TreeId tree, KeyValueSet items)
    {
        ArgumentNullException.ThrowIfNull(store);
        ArgumentNullException.ThrowIfNull(items);
        using var transaction = store.BeginWrite();
        for (var i = 0; i < items.Count; i++)
        {
            transaction.Put(tree, items.Keys[i], items.Values[i]);
        }

        transaction.Commit();
    }
}
