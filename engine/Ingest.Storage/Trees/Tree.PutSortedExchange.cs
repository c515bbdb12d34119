using System.Runtime.CompilerServices;

namespace Ingest.Storage.Trees;

/// <summary>
/// Sorted batch upserts that hand back what they replaced: an index of fixed-size values (the
/// document store's id to etag) learns each key's previous value and sets the new one in the same
/// ordered pass, instead of one lookup and one put, each a descent, per key.
/// </summary>
public sealed unsafe partial class Tree
{
    /// <summary>
    /// Puts <paramref name="valueSize"/>-byte values, laid end to end in <paramref name="values"/>, under
    /// <paramref name="keys"/> (strictly ascending) in one ordered pass, as <see cref="PutSorted"/> does.
    /// For each key that existed, its previous value is copied to the same place in
    /// <paramref name="previousValues"/> and <paramref name="hadPrevious"/> is set; otherwise that flag is
    /// cleared. Keys out of order throw an <see cref="ArgumentException"/> before anything is written; a
    /// previous value that is not <paramref name="valueSize"/> bytes throws an
    /// <see cref="InvalidDataException"/> (the pass stops there: abort the transaction).
    /// </summary>
    public void PutSorted(ReadOnlySpan<ReadOnlyMemory<byte>> keys, ReadOnlySpan<byte> values, int valueSize, Span<byte> previousValues, Span<bool> hadPrevious) =>
        PutSortedExchangeCore(new MemoryKeyList(keys), values, valueSize, previousValues, hadPrevious);

    // Called once per batch with a long loop: without this it would run as unoptimized tier-0 code until OSR.
    [MethodImpl(MethodImplOptions.AggressiveOptimization)]
    private void PutSortedExchangeCore<TKeys>(TKeys keys, ReadOnlySpan<byte> values, int valueSize, Span<byte> previousValues, Span<bool> hadPrevious)
        where TKeys : IKeyList, allows ref struct
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(valueSize);
        var n = keys.Count;
        if (values.Length != (long)n * valueSize || previousValues.Length < values.Length || hadPrevious.Length < n)
        {
            throw new ArgumentException($"{n} keys need {(long)n * valueSize} bytes of values and of previous values and {n} flags; got {values.Length}, {previousValues.Length} and {hadPrevious.Length}.", nameof(values));
        }

        for (var k = 0; k < n; k++)
        {
            if (keys[k].Length > MaxKeySize)
            {
                throw new ArgumentException($"Keys are limited to {MaxKeySize} bytes; key {k} has {keys[k].Length}.", nameof(keys));
            }

            if (k > 0 && TreePage.CompareKeys(keys[k], keys[k - 1]) <= 0)
            {
                throw new ArgumentException($"Keys must be in strictly ascending order (index {k}).", nameof(keys));
            }
        }

        if (n == 0)
        {
            return;
        }

        _pages.EnsureActive();
        var tx = _pages.Writer;
        Version++;
        long added = 0;
        var i = 0;
        var pathValid = false;
        while (i < n)
        {
            var leafPage = pathValid ? FindLeafFromPath(keys[i]) : FindLeaf(keys[i]);
            pathValid = true;
            var hasUpper = LeafUpperBound(_depth, out var upper);
            var from = 0;
            for (; i < n; i++)
            {
                var key = keys[i];
                if (hasUpper && key.SequenceCompareTo(upper) >= 0)
                {
                    break;
                }

                // The leaf is warm from the descent: this search is cheap, and it reads the value before it is replaced.
                var leaf = _pages.Read(leafPage);
                var idx = TreePage.SearchLeaf(leaf, key, out var found, from);
                hadPrevious[i] = found;
                if (found)
                {
                    var old = ReadValue(TreePage.Entry(leaf, idx));
                    if (old.Length != valueSize)
                    {
                        throw new InvalidDataException($"Tree '{Name}': key {i} holds a {old.Length}-byte value, not {valueSize} bytes.");
                    }

                    old.CopyTo(previousValues.Slice(i * valueSize, valueSize));
                }

                var value = values.Slice(i * valueSize, valueSize);
                if (!TryPutInLeaf(tx, leafPage, key, value, ref from, ref added))
                {
                    // The leaf is full: Put splits it (and maybe its ancestors), so the path is stale.
                    Put(key, value);
                    pathValid = false;
                    i++;
                    break;
                }
            }
        }

        if (added != 0)
        {
            var root = tx.ModifyPage(RootPage);
            TreePage.SetTreeCount(root, TreePage.GetTreeCount(root) + added);
        }
    }
}
