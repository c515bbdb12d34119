using System.Buffers.Binary;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Reduce;
using Ingest.Storage;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

/// <summary>
/// One index's storage: its own <see cref="StorageEnvironment"/> (layout in <see cref="IndexLayout"/>). A batch of
/// puts and deletes is applied in one write transaction with the batch's last etag: every entry's old terms are
/// diffed against its new ones, all the batch's (field, term, entry) removals and additions are collected, sorted and
/// applied per term in one ordered pass (one sorted <c>PostingList.Update</c> or one inline rewrite per term, never
/// one removal per pair). The work buffers are kept across batches. One writer at a time (the indexing loop); readers
/// use <see cref="BeginRead"/> from any thread.
/// </summary>
internal sealed class IndexStorage : IDisposable
{
    /// <summary>Ids a term keeps in its dictionary value before it moves to a posting list of its own.</summary>
    public const int DefaultInlineLimit = 1024;

    private readonly StorageEnvironment _env;
    private readonly int _inlineLimit;
    private readonly int _fieldCount;
    private readonly bool[] _isColumn;

    // Batch work, reused.
    private readonly ByteArena _arena = new();
    private readonly ByteArena _record = new();
    private readonly PostingOpComparer _comparer = new();
    private readonly PostingOpGroups _groups = new();
    private readonly List<PostingOp> _ops = [];
    private readonly List<PostingOp> _nullOps = [];
    private readonly List<PostingOp> _oldTerms = [];
    private readonly List<PostingOp> _newTerms = [];
    private readonly List<long> _additions = [];
    private readonly List<long> _removals = [];
    private readonly List<long> _ids = [];
    private readonly List<long> _merged = [];
    private readonly BatchDocuments _documents = new();
    private readonly bool[] _oldNull;
    private readonly bool[] _newNull;
    private readonly FixedSizeTree?[] _columns;
    private readonly byte[] _key = new byte[Tree.MaxKeySize];
    private readonly byte[] _value;

    // Per field counters (wrong types, nulls), committed with each batch; the pending copy becomes current on commit.
    private readonly long[] _fieldCounts;

    // Map-reduce only: the groups kept in the same batch, and each column field's first value in the old and new version.
    private readonly ReduceMaintainer? _reduce;
    private readonly byte[] _oldFirst;
    private readonly byte[] _newFirst;
    private readonly bool[] _oldHasFirst;
    private readonly bool[] _newHasFirst;
    private readonly long[] _pendingFieldCounts;
    private readonly byte[] _fieldCountBytes;

    private IndexStorage(StorageEnvironment env, IndexDefinition definition, int inlineLimit)
    {
        _env = env;
        Definition = definition;
        _inlineLimit = inlineLimit;
        _value = new byte[1 + ((inlineLimit + 1) * VarInt.MaxLength)];
        Extractor = new DocumentExtractor([.. definition.Fields.Select(CompiledIndexField.Compile)]);
        _fieldCount = definition.Fields.Count;
        _isColumn = [.. definition.Fields.Select(f => f.Type is IndexFieldType.Number or IndexFieldType.DateTime)];
        _oldNull = new bool[_fieldCount];
        _newNull = new bool[_fieldCount];
        _columns = new FixedSizeTree?[_fieldCount];
        _fieldCounts = new long[2 * _fieldCount];
        _pendingFieldCounts = new long[2 * _fieldCount];
        _fieldCountBytes = new byte[16 * _fieldCount];
        _ordinals = new OrdinalColumns([.. definition.Fields.Select(f => f.Type == IndexFieldType.Keyword)]);
        var plan = ReducePlan.For(definition);
        _reduce = plan == null ? null : new ReduceMaintainer(plan);
        _oldFirst = new byte[8 * _fieldCount];
        _newFirst = new byte[8 * _fieldCount];
        _oldHasFirst = new bool[_fieldCount];
        _newHasFirst = new bool[_fieldCount];
    }

    private readonly OrdinalColumns _ordinals;

    /// <summary>The storage format of this build (<see cref="IndexLayout.CurrentFormat"/>, or older: then it has no ordinal columns and should be rebuilt).</summary>
    public int Format { get; private set; }

    /// <summary>The groups of a map-reduce index (null for a map index).</summary>
    internal ReducePlan? ReducePlan => _reduce?.Plan;

    /// <summary>Groups the last <see cref="Apply"/> touched (map-reduce only).</summary>
    public int LastTouchedGroups { get; private set; }

    public IndexDefinition Definition { get; }

    public DocumentExtractor Extractor { get; }

    /// <summary>The etag of the last change committed (0 for a new index).</summary>
    public long LastIndexedEtag { get; private set; }

    /// <summary>Documents in the index as of the last commit.</summary>
    public long EntryCount { get; private set; }

    /// <summary>The directory of the index's environment.</summary>
    public string Directory => _env.Directory;

    /// <summary>The index's bytes on disk (data file, journal files, free pages inside them).</summary>
    public StorageSpace GetSpace() => _env.GetSpace();

    /// <summary>Bytes the batch work buffers kept across batches hold (they grow with the largest batch applied).</summary>
    public long WorkMemoryBytes =>
        _arena.Bytes.Length + _record.Bytes.Length
        + ((long)(_ops.Capacity + _nullOps.Capacity + _oldTerms.Capacity + _newTerms.Capacity) * Unsafe.SizeOf<PostingOp>())
        + ((long)(_additions.Capacity + _removals.Capacity + _ids.Capacity + _merged.Capacity) * sizeof(long))
        + _documents.CapacityBytes
        + _groups.CapacityBytes
        + _ordinals.WorkMemoryBytes
        + (_reduce?.WorkMemoryBytes ?? 0);

    /// <summary>Values of field <paramref name="field"/> skipped for their JSON type, over every indexed document version.</summary>
    public long WrongTypeCount(int field) => _fieldCounts[2 * field];

    /// <summary>Documents in the index whose field <paramref name="field"/> is null or missing.</summary>
    public long NullCount(int field) => _fieldCounts[(2 * field) + 1];

    /// <summary>The definition stored in an index directory, or null when there is none (not an index).</summary>
    public static IndexDefinition? ReadDefinition(string directory, StorageOptions? options = null)
    {
        using var env = StorageEnvironment.Open(directory, options);
        using var tx = env.BeginRead();
        var meta = tx.OpenTree(IndexLayout.Meta);
        return meta != null && meta.TryGet(IndexLayout.DefinitionKey, out var stored) ? IndexDefinitionJson.Parse(stored).Definition : null;
    }

    /// <summary>
    /// Opens (or creates) the index stored in <paramref name="directory"/>. A new index stores
    /// <paramref name="definition"/>; an existing one must hold an equal definition (a changed definition is a
    /// rebuild into a new directory, not an open).
    /// </summary>
    /// <exception cref="InvalidOperationException">The directory holds a different definition.</exception>
    /// <param name="format">The format a new index is created in: only tests make an older one (to test its rebuild).</param>
    public static IndexStorage Open(string directory, IndexDefinition definition, StorageOptions? options = null, int inlineLimit = DefaultInlineLimit, int format = IndexLayout.CurrentFormat)
    {
        ArgumentNullException.ThrowIfNull(definition);
        ArgumentOutOfRangeException.ThrowIfLessThan(inlineLimit, 1);
        // A new index directory is an unjournaled build until it catches up (TryFinishBuild): a crash meanwhile
        // discards it, and the index is built again from etag 0, which is all the journal would have saved.
        var buildOptions = options?.Clone() ?? new StorageOptions();
        buildOptions.UnjournaledBuild = true;
        var env = StorageEnvironment.Open(directory, buildOptions);
        try
        {
            var storage = new IndexStorage(env, definition, inlineLimit);
            using var tx = env.BeginWrite();
            var meta = tx.CreateTree(IndexLayout.Meta);
            if (meta.TryGet(IndexLayout.DefinitionKey, out var stored))
            {
                var parsed = IndexDefinitionJson.Parse(stored);
                if (!definition.Equals(parsed.Definition))
                {
                    throw new InvalidOperationException($"The index in '{directory}' was built from a different definition of '{parsed.Definition?.Name}'; a changed definition needs a rebuild in a new directory.");
                }
            }
            else
            {
                meta.Put(IndexLayout.DefinitionKey, IndexDefinitionJson.ToUtf8(definition));
                if (format >= IndexLayout.CurrentFormat)
                {
                    Span<byte> formatBytes = stackalloc byte[4];
                    BinaryPrimitives.WriteInt32LittleEndian(formatBytes, IndexLayout.CurrentFormat);
                    meta.Put(IndexLayout.FormatKey, formatBytes);
                }
            }

            storage.Format = meta.TryGet(IndexLayout.FormatKey, out var stored2) ? BinaryPrimitives.ReadInt32LittleEndian(stored2) : 1;

            storage.LastIndexedEtag = meta.TryGet(IndexLayout.LastEtagKey, out var etag) ? IndexLayout.ReadInt64(etag) : 0;
            storage.EntryCount = meta.TryGet(IndexLayout.EntryCountKey, out var count) ? IndexLayout.ReadInt64(count) : 0;
            if (meta.TryGet(IndexLayout.FieldCountsKey, out var counts) && counts.Length == storage._fieldCountBytes.Length)
            {
                for (var i = 0; i < storage._fieldCounts.Length; i++)
                {
                    storage._fieldCounts[i] = IndexLayout.ReadInt64(counts[(8 * i)..]);
                }
            }
            tx.CreateTree(IndexLayout.Terms);
            tx.CreateTree(IndexLayout.Entries);
            tx.CreateTree(IndexLayout.Docs);
            if (storage._reduce != null)
            {
                tx.CreateTree(ReduceLayout.Groups);
                tx.CreateTree(ReduceLayout.Values);
            }

            tx.Commit();
            return storage;
        }
        catch
        {
            env.Dispose();
            throw;
        }
    }

    /// <summary>A batch for this index's fields, to fill, <see cref="Apply"/>, clear and fill again.</summary>
    public IndexBatch CreateBatch() => new(Extractor);

    /// <summary>A consistent view of the index as of the last commit; dispose it promptly.</summary>
    public IndexReader BeginRead() => new(_env.BeginRead(), _fieldCount, ReducePlan) { HasOrdinals = Format >= IndexLayout.CurrentFormat };

    /// <summary>A reader that calls <paramref name="onDispose"/> when it is disposed (the owner counts its readers).</summary>
    public IndexReader BeginRead(Action onDispose) => new(_env.BeginRead(), _fieldCount, ReducePlan, onDispose) { HasOrdinals = Format >= IndexLayout.CurrentFormat };

    /// <summary>
    /// Applies <paramref name="batch"/> (a document changed several times in it counts with its last change) and
    /// commits it with its last etag in one transaction. Does not clear the batch.
    /// </summary>
    public void Apply(IndexBatch batch) => Apply(batch, batch?.LastEtag ?? 0);

    /// <summary>
    /// Applies <paramref name="batch"/> and commits <paramref name="throughEtag"/> as the last indexed etag: the
    /// changes feed may have gone on past the batch's last change with changes this index skips (other collections).
    /// An empty batch commits the etag alone. Nothing happens when <paramref name="throughEtag"/> is not past the
    /// last indexed etag and the batch is empty.
    /// </summary>
    public void Apply(IndexBatch batch, long throughEtag)
    {
        ArgumentNullException.ThrowIfNull(batch);
        if (batch.Count == 0 && throughEtag <= LastIndexedEtag)
        {
            return;
        }

        if (throughEtag < batch.LastEtag || throughEtag <= LastIndexedEtag)
        {
            throw new ArgumentException($"The batch ends at etag {Math.Max(batch.LastEtag, throughEtag)}, not after the last indexed etag {LastIndexedEtag}.", nameof(batch));
        }

        _fieldCounts.CopyTo(_pendingFieldCounts, 0);
        var entryCount = EntryCount;

        _arena.Clear();
        _ops.Clear();
        _nullOps.Clear();
        _ordinals.Clear();
        _reduce?.Clear();
        using var tx = _env.BeginWrite();
        var meta = tx.CreateTree(IndexLayout.Meta);
        var nextEntry = meta.TryGet(IndexLayout.NextEntryKey, out var next) ? IndexLayout.ReadInt64(next) : 1;
        for (var f = 0; f < _fieldCount; f++)
        {
            _columns[f] = _isColumn[f] ? tx.CreateFixedSizeTree(IndexLayout.ColumnName(f), 8) : null;
        }

        var entries = tx.CreateTree(IndexLayout.Entries);
        var docs = tx.CreateTree(IndexLayout.Docs);

        // At least one op and its bytes per new term: grown once, not by doubling through fresh memory (page faults).
        _ops.EnsureCapacity(batch.Terms.Count);
        _arena.Reserve(batch.Terms.ByteCount);
        _documents.Resolve(batch, docs, ref nextEntry);
        for (var i = 0; i < batch.Count; i++)
        {
            if (_documents.EntryOf(i) != 0)
            {
                CollectEntryChanges(batch, i, entries, docs);
            }
        }

        ApplyTermChanges(tx);
        ApplyNullChanges(tx);
        if (Format >= IndexLayout.CurrentFormat)
        {
            _ordinals.Apply(tx, meta, _arena.Bytes, _groups);
            _ordinals.Commit(meta);
        }

        LastTouchedGroups = _reduce?.TouchedGroups ?? 0;
        _reduce?.Apply(tx);
        entryCount = docs.Count;
        Span<byte> number = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(number, nextEntry);
        meta.Put(IndexLayout.NextEntryKey, number);
        BinaryPrimitives.WriteInt64LittleEndian(number, throughEtag);
        meta.Put(IndexLayout.LastEtagKey, number);
        BinaryPrimitives.WriteInt64LittleEndian(number, entryCount);
        meta.Put(IndexLayout.EntryCountKey, number);
        for (var i = 0; i < _pendingFieldCounts.Length; i++)
        {
            BinaryPrimitives.WriteInt64LittleEndian(_fieldCountBytes.AsSpan(8 * i), _pendingFieldCounts[i]);
        }

        meta.Put(IndexLayout.FieldCountsKey, _fieldCountBytes);
        tx.Commit();
        LastIndexedEtag = throughEtag;
        EntryCount = entryCount;
        _pendingFieldCounts.CopyTo(_fieldCounts, 0);
        Array.Clear(_columns);
        LastApplyCounters = tx.Counters;
    }

    /// <summary>What the last <see cref="Apply"/> did in the engine: page accesses, descents, posting list updates.</summary>
    public TransactionCounters LastApplyCounters { get; private set; }

    /// <summary>
    /// For the indexing benchmark's comparison only: applies each (term, entry) change of a term that has a
    /// posting list with its own <c>Remove</c> or <c>Add</c>, as an index without sorted batches would. Off by default.
    /// </summary>
    internal bool ApplyPostingsOneByOne { get; set; }

    /// <summary>Checks every page of the index (see <see cref="StorageEnvironment.Verify"/>); its page count is the index's live size.</summary>
    public VerificationReport Verify() => _env.Verify();

    /// <summary>The index's environment, for benchmarks that count its pages by tree (where its bytes go).</summary>
    internal StorageEnvironment Environment => _env;

    /// <summary>
    /// True while the index is being built into a new directory without a journal (its batches are not durable one
    /// by one; a crash discards the build and it starts again from etag 0).
    /// </summary>
    public bool IsBuilding => _env.IsBuilding;

    /// <summary>Makes the build durable and journals every later batch; false while a reader pins an older snapshot (try again later).</summary>
    public bool TryFinishBuild() => _env.TryFinishBuild();

    public void Dispose() => _env.Dispose();

    /// <summary>
    /// Diffs one document's old and new terms into the batch's ops, and rewrites its entry and columns (and deletes its
    /// id; <see cref="BatchDocuments.Resolve"/> found its entry and put a new document's id).
    /// </summary>
    private void CollectEntryChanges(IndexBatch batch, int index, Tree entries, Tree docs)
    {
        var change = batch[index];
        Span<byte> entryKey = stackalloc byte[8];
        _oldTerms.Clear();
        _newTerms.Clear();
        var entry = _documents.EntryOf(index);
        var existed = _documents.Existed(index);
        IndexLayout.EntryKey(entry, entryKey);
        if (existed)
        {
            if (entries.TryGet(entryKey, out var record))
            {
                EntryRecord.DecodeTerms(record, entry, _arena, _oldTerms, _oldNull);
                if (_reduce != null)
                {
                    // The old version's contribution leaves its groups: its terms from the entry, its first values from the columns, before they change.
                    ReadOldFirstValues(entry);
                    _reduce.Contribute(CollectionsMarshal.AsSpan(_oldTerms), _arena.Bytes, _oldFirst, _oldHasFirst, -1);
                }
            }
            else
            {
                Array.Clear(_oldNull);
            }
        }
        else
        {
            Array.Clear(_oldNull);
        }

        var tallies = batch.TalliesOf(index);
        for (var f = 0; f < _fieldCount; f++)
        {
            _newNull[f] = !change.IsDelete && tallies[f].IsNull;
            _pendingFieldCounts[2 * f] += tallies[f].WrongTypeCount;
        }

        for (var t = change.TermStart; t < change.TermEnd; t++)
        {
            var term = batch.Terms[t];
            _newTerms.Add(new PostingOp(batch.Terms.FieldOf(t), _arena.Append(term), term.Length, entry, IsAddition: true));
        }

        UpdateColumns(entry, existed);
        _comparer.Arena = _arena.Bytes;
        var newTerms = CollectionsMarshal.AsSpan(_newTerms);
        DocumentTermSort.Sort(newTerms, _arena.Bytes, _comparer);
        var distinct = Distinct(newTerms);
        if (_reduce != null && !change.IsDelete)
        {
            _reduce.Contribute(newTerms[..distinct], _arena.Bytes, _newFirst, _newHasFirst, +1);
        }

        DiffInto(CollectionsMarshal.AsSpan(_oldTerms), newTerms[..distinct]);
        if (Format >= IndexLayout.CurrentFormat)
        {
            _ordinals.Collect(entry, change.IsDelete ? [] : newTerms[..distinct], existed);
        }

        for (var f = 0; f < _fieldCount; f++)
        {
            if (_oldNull[f] != _newNull[f])
            {
                _nullOps.Add(new PostingOp(f, 0, 0, entry, _newNull[f]));
                _pendingFieldCounts[(2 * f) + 1] += _newNull[f] ? 1 : -1;
            }
        }

        if (change.IsDelete)
        {
            entries.Delete(entryKey);
            docs.Delete(_documents.KeyOf(index));
        }
        else
        {
            EntryRecord.Encode(change.DocumentId, newTerms[..distinct], _newNull, _arena.Bytes, _record);
            entries.Put(entryKey, _record.Bytes.AsSpan(0, _record.Length));
        }
    }

    /// <summary>Each numeric field's column holds the entry's first value in document order (the new terms, unsorted yet).</summary>
    private void UpdateColumns(long entry, bool existed)
    {
        for (var f = 0; f < _fieldCount; f++)
        {
            var column = _columns[f];
            if (column == null)
            {
                continue;
            }

            var found = false;
            foreach (var term in CollectionsMarshal.AsSpan(_newTerms))
            {
                if (term.Field == f)
                {
                    column.Put(entry, _arena.Bytes.AsSpan(term.Start, term.Length));
                    _arena.Bytes.AsSpan(term.Start, 8).CopyTo(_newFirst.AsSpan(8 * f));
                    found = true;
                    break;
                }
            }

            _newHasFirst[f] = found;
            if (!found && existed)
            {
                column.Delete(entry);
            }
        }
    }

    private void ReadOldFirstValues(long entry)
    {
        for (var f = 0; f < _fieldCount; f++)
        {
            _oldHasFirst[f] = false;
            if (_columns[f] is { } column && column.TryGet(entry, out var first))
            {
                first.CopyTo(_oldFirst.AsSpan(8 * f));
                _oldHasFirst[f] = true;
            }
        }
    }

    /// <summary>Moves the distinct ops of a sorted span to its front; returns how many there are.</summary>
    private int Distinct(Span<PostingOp> sorted)
    {
        var count = 0;
        for (var i = 0; i < sorted.Length; i++)
        {
            if (count == 0 || _comparer.CompareTerms(sorted[count - 1], sorted[i]) != 0)
            {
                sorted[count++] = sorted[i];
            }
        }

        return count;
    }

    /// <summary>Old terms not in the new become removals, new terms not in the old become additions (both sorted).</summary>
    private void DiffInto(ReadOnlySpan<PostingOp> old, ReadOnlySpan<PostingOp> current)
    {
        int o = 0, n = 0;
        while (o < old.Length || n < current.Length)
        {
            var c = o == old.Length ? 1 : n == current.Length ? -1 : _comparer.CompareTerms(old[o], current[n]);
            if (c < 0)
            {
                _ops.Add(old[o++]);
            }
            else if (c > 0)
            {
                _ops.Add(current[n++]);
            }
            else
            {
                o++;
                n++;
            }
        }
    }

    /// <summary>The ordered pass: the batch's ops grouped by term in key order, one dictionary update per term.</summary>
    private void ApplyTermChanges(WriteTransaction tx)
    {
        var terms = tx.CreateTree(IndexLayout.Terms);
        _groups.Group(CollectionsMarshal.AsSpan(_ops), _arena.Bytes);
        for (var rank = 0; rank < _groups.Count; rank++)
        {
            var term = _groups.Term(rank);
            var keyLength = IndexLayout.TermKey(term.Field, _arena.Bytes.AsSpan(term.Start, term.Length), _key);
            UpdateTerm(tx, terms, _key.AsSpan(0, keyLength), _groups.Additions(rank), _groups.Removals(rank));
        }
    }

    private void UpdateTerm(WriteTransaction tx, Tree terms, ReadOnlySpan<byte> key, ReadOnlySpan<long> additions, ReadOnlySpan<long> removals)
    {
        _ids.Clear();
        var existed = terms.TryGet(key, out var value);
        if (existed && value[0] == IndexLayout.SpilledTag)
        {
            var list = tx.OpenPostingList(IndexLayout.PostingsName(IndexLayout.ReadInt64(value[1..])))
                ?? throw new InvalidDataException("A term's posting list is missing from the index.");
            Update(list, additions, removals);
            return;
        }

        if (existed)
        {
            InlinePostings.Decode(value, _ids);
        }

        MergeIds(CollectionsMarshal.AsSpan(_ids), additions, removals, _merged);
        var merged = CollectionsMarshal.AsSpan(_merged);
        if (merged.Length == 0)
        {
            if (existed)
            {
                terms.Delete(key);
            }
        }
        else if (merged.Length <= _inlineLimit)
        {
            terms.Put(key, _value.AsSpan(0, InlinePostings.Encode(merged, _value)));
        }
        else
        {
            var meta = tx.CreateTree(IndexLayout.Meta);
            var number = meta.TryGet(IndexLayout.NextListKey, out var next) ? IndexLayout.ReadInt64(next) : 1;
            tx.CreatePostingList(IndexLayout.PostingsName(number)).Update(merged, []);
            Span<byte> spilled = stackalloc byte[9];
            spilled[0] = IndexLayout.SpilledTag;
            BinaryPrimitives.WriteInt64LittleEndian(spilled[1..], number);
            terms.Put(key, spilled);
            BinaryPrimitives.WriteInt64LittleEndian(spilled[1..], number + 1);
            meta.Put(IndexLayout.NextListKey, spilled[1..]);
        }
    }

    private void Update(PostingList list, ReadOnlySpan<long> additions, ReadOnlySpan<long> removals)
    {
        if (!ApplyPostingsOneByOne)
        {
            list.Update(additions, removals);
            return;
        }

        foreach (var id in removals)
        {
            list.Remove(id);
        }

        foreach (var id in additions)
        {
            list.Add(id);
        }
    }

    /// <summary>(<paramref name="ids"/> minus <paramref name="removals"/>) union <paramref name="additions"/>, all ascending.</summary>
    private static void MergeIds(ReadOnlySpan<long> ids, ReadOnlySpan<long> additions, ReadOnlySpan<long> removals, List<long> result)
    {
        result.Clear();
        int i = 0, a = 0, r = 0;
        while (i < ids.Length || a < additions.Length)
        {
            long next;
            if (a == additions.Length || (i < ids.Length && ids[i] < additions[a]))
            {
                next = ids[i++];
                while (r < removals.Length && removals[r] < next)
                {
                    r++;
                }

                if (r < removals.Length && removals[r] == next)
                {
                    continue;
                }
            }
            else
            {
                next = additions[a++];
                if (i < ids.Length && ids[i] == next)
                {
                    i++;
                }
            }

            result.Add(next);
        }
    }

    private void ApplyNullChanges(WriteTransaction tx)
    {
        var ops = CollectionsMarshal.AsSpan(_nullOps);
        ops.Sort(_comparer);
        for (var i = 0; i < ops.Length;)
        {
            _additions.Clear();
            _removals.Clear();
            var j = i;
            for (; j < ops.Length && ops[j].Field == ops[i].Field; j++)
            {
                (ops[j].IsAddition ? _additions : _removals).Add(ops[j].Entry);
            }

            Update(tx.CreatePostingList(IndexLayout.NullsName(ops[i].Field)), CollectionsMarshal.AsSpan(_additions), CollectionsMarshal.AsSpan(_removals));
            i = j;
        }
    }
}
