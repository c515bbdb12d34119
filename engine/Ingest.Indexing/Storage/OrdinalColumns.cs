using System.Buffers.Binary;
using System.Runtime.InteropServices;
using Ingest.Storage;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

/// <summary>
/// Writes the keyword fields' ordinal columns (format 2, layout in <see cref="IndexLayout"/>): each entry's term
/// numbers, so facets and <c>group by</c> cost per match, not per indexed entry. A batch collects, per put, the entry's
/// distinct keyword terms (and, per entry that existed, which columns to clear); <see cref="Apply"/> then resolves
/// every distinct term of the batch to its number once (in key order, one lookup per term, a new number for a new
/// term) and writes each (field, entry) once. Work lists are kept across batches. One writer at a time.
/// </summary>
internal sealed class OrdinalColumns
{
    private const int EntryBits = 40;

    private readonly bool[] _isKeyword;
    private readonly uint[] _nextNumber;
    private readonly byte[] _nextBytes;
    private readonly List<PostingOp> _terms = [];
    private readonly List<long> _clears = [];
    private long[] _keys = [];
    private uint[] _numbers = [];
    private uint[] _numberOf = [];
    private readonly byte[] _key = new byte[Tree.MaxKeySize];
    private readonly Tree?[] _sets;
    private readonly bool[] _setsOpened;
    private byte[] _set = new byte[64];
    private bool _numbersChanged;

    public OrdinalColumns(bool[] isKeyword)
    {
        _isKeyword = isKeyword;
        _nextNumber = new uint[isKeyword.Length];
        _nextBytes = new byte[4 * isKeyword.Length];
        _sets = new Tree?[isKeyword.Length];
        _setsOpened = new bool[isKeyword.Length];
    }

    /// <summary>Whether any field has a column (no keyword field: nothing to do).</summary>
    public bool Any => Array.IndexOf(_isKeyword, true) >= 0;

    public long WorkMemoryBytes =>
        ((long)_terms.Capacity * 24) + ((long)_clears.Capacity * 8) + ((long)_keys.Length * 12) + ((long)_numberOf.Length * 4);

    /// <summary>Reads the next term number of each field from the meta tree (1 for a field that has none yet).</summary>
    public void Load(Tree meta)
    {
        var stored = meta.TryGet(IndexLayout.OrdinalNextKey, out var bytes) && bytes.Length == _nextBytes.Length;
        for (var f = 0; f < _nextNumber.Length; f++)
        {
            _nextNumber[f] = stored ? BinaryPrimitives.ReadUInt32LittleEndian(bytes[(4 * f)..]) : 1;
        }
    }

    public void Clear()
    {
        _terms.Clear();
        _clears.Clear();
        _numbersChanged = false;
    }

    /// <summary>
    /// Records one changed entry: <paramref name="terms"/> are its new distinct terms sorted by (field, term) (none for a
    /// delete); <paramref name="existed"/> says whether it may hold column values to clear.
    /// </summary>
    public void Collect(long entry, ReadOnlySpan<PostingOp> terms, bool existed)
    {
        if ((ulong)entry >= 1UL << EntryBits)
        {
            throw new InvalidOperationException($"Entry id {entry} is past what an ordinal column addresses.");
        }

        var t = 0;
        for (var f = 0; f < _isKeyword.Length; f++)
        {
            var any = false;
            while (t < terms.Length && terms[t].Field < f)
            {
                t++;
            }

            for (; t < terms.Length && terms[t].Field == f; t++)
            {
                if (_isKeyword[f])
                {
                    _terms.Add(terms[t] with { Entry = entry });
                    any = true;
                }
            }

            if (_isKeyword[f] && existed && !any)
            {
                _clears.Add(((long)f << EntryBits) | entry);
            }
        }
    }

    /// <summary>Numbers the batch's terms and writes the columns, in the batch's transaction.</summary>
    public void Apply(WriteTransaction tx, Tree meta, byte[] arena, PostingOpGroups groups)
    {
        // Read afresh each batch: a batch that failed (a full disk) gave out numbers it never committed.
        Load(meta);
        Array.Clear(_sets);
        Array.Clear(_setsOpened);
        var clears = CollectionsMarshal.AsSpan(_clears);
        clears.Sort();
        FixedSizeTree? cleared = null;
        var clearedField = -1;
        foreach (var clear in clears)
        {
            var field = (int)(clear >> EntryBits);
            var entry = clear & ((1L << EntryBits) - 1);
            if (field != clearedField)
            {
                cleared = tx.OpenFixedSizeTree(IndexLayout.OrdinalsName(field));
                clearedField = field;
            }

            cleared?.Delete(entry);
            DeleteSet(tx, field, entry);
        }

        var terms = CollectionsMarshal.AsSpan(_terms);
        if (terms.IsEmpty)
        {
            return;
        }

        // The distinct terms (a few hundred against every keyword of every changed entry) are interned, then sorted
        // (in the term pass's groups, done with by now): sorting every op with a comparer of term bytes was most of this
        // pass in the churn's profile.
        if (_keys.Length < terms.Length)
        {
            _keys = new long[Math.Max(terms.Length, _keys.Length * 2)];
            _numbers = new uint[_keys.Length];
        }

        groups.Intern(terms, arena, _numbers.AsSpan(0, terms.Length)); // each op's rank until it is numbered below
        for (var i = 0; i < terms.Length; i++)
        {
            _keys[i] = ((long)terms[i].Field << EntryBits) | terms[i].Entry;
        }

        if (_numberOf.Length < groups.Count)
        {
            _numberOf = new uint[Math.Max(groups.Count, _numberOf.Length * 2)];
        }

        // One lookup (or a new number) per distinct term, in key order.
        var ids = tx.CreateTree(IndexLayout.OrdinalIds);
        var names = tx.CreateTree(IndexLayout.OrdinalTerms);
        Span<byte> number = stackalloc byte[4];
        Span<byte> nameKey = stackalloc byte[IndexLayout.FieldPrefixSize + 4];
        for (var rank = 0; rank < groups.Count; rank++)
        {
            var op = groups.Term(rank);
            var keyLength = IndexLayout.TermKey(op.Field, arena.AsSpan(op.Start, op.Length), _key);
            uint id;
            if (ids.TryGet(_key.AsSpan(0, keyLength), out var stored))
            {
                id = BinaryPrimitives.ReadUInt32LittleEndian(stored);
            }
            else
            {
                id = _nextNumber[op.Field]++;
                _numbersChanged = true;
                BinaryPrimitives.WriteUInt32LittleEndian(number, id);
                ids.Put(_key.AsSpan(0, keyLength), number);
                IndexLayout.OrdinalTermKey(op.Field, id, nameKey);
                names.Put(nameKey, arena.AsSpan(op.Start, op.Length));
            }

            _numberOf[rank] = id;
        }

        for (var i = 0; i < terms.Length; i++)
        {
            _numbers[i] = _numberOf[(int)_numbers[i]];
        }

        // Then each (field, entry) once, in key order: | first number u32 | count u32 |, the rest in the set tree.
        var keys = _keys.AsSpan(0, terms.Length);
        var numbers = _numbers.AsSpan(0, terms.Length);
        keys.Sort(numbers);
        Span<byte> value = stackalloc byte[8];
        FixedSizeTree? column = null;
        var columnField = -1;
        for (var i = 0; i < keys.Length;)
        {
            var j = i + 1;
            while (j < keys.Length && keys[j] == keys[i])
            {
                j++;
            }

            var field = (int)(keys[i] >> EntryBits);
            var entry = keys[i] & ((1L << EntryBits) - 1);
            if (field != columnField)
            {
                column = tx.CreateFixedSizeTree(IndexLayout.OrdinalsName(field), 8);
                columnField = field;
            }

            numbers[i..j].Sort();
            BinaryPrimitives.WriteUInt32LittleEndian(value, numbers[i]);
            BinaryPrimitives.WriteUInt32LittleEndian(value[4..], (uint)(j - i));
            column!.Put(entry, value);
            if (j - i > 1)
            {
                WriteSet(tx, field, entry, numbers[i..j]);
            }
            else
            {
                DeleteSet(tx, field, entry);
            }

            i = j;
        }
    }

    /// <summary>Stores the next term numbers when the batch gave out new ones.</summary>
    public void Commit(Tree meta)
    {
        if (!_numbersChanged)
        {
            return;
        }

        for (var f = 0; f < _nextNumber.Length; f++)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(_nextBytes.AsSpan(4 * f), _nextNumber[f]);
        }

        meta.Put(IndexLayout.OrdinalNextKey, _nextBytes);
    }

    private void WriteSet(WriteTransaction tx, int field, long entry, ReadOnlySpan<uint> numbers)
    {
        if (_set.Length < 4 * numbers.Length)
        {
            _set = new byte[Math.Max(4 * numbers.Length, _set.Length * 2)];
        }

        for (var i = 0; i < numbers.Length; i++)
        {
            BinaryPrimitives.WriteUInt32LittleEndian(_set.AsSpan(4 * i), numbers[i]);
        }

        Span<byte> entryKey = stackalloc byte[8];
        IndexLayout.EntryKey(entry, entryKey);
        _sets[field] ??= tx.CreateTree(IndexLayout.OrdinalSetsName(field));
        _setsOpened[field] = true;
        _sets[field]!.Put(entryKey, _set.AsSpan(0, 4 * numbers.Length));
    }

    private void DeleteSet(WriteTransaction tx, int field, long entry)
    {
        if (!_setsOpened[field])
        {
            _sets[field] = tx.OpenTree(IndexLayout.OrdinalSetsName(field));
            _setsOpened[field] = true;
        }

        var sets = _sets[field];
        if (sets == null || sets.Count == 0)
        {
            return;
        }

        Span<byte> entryKey = stackalloc byte[8];
        IndexLayout.EntryKey(entry, entryKey);
        sets.Delete(entryKey);
    }
}
