using System.Buffers;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Aggregation;

/// <summary>
/// <see cref="FieldTermGroups"/> of a keyword field from its ordinal column (Lucene's sorted doc values): each match's
/// term numbers in one ordered read of the column, then the distinct numbers the matches hold mapped to term order by
/// reading and sorting their terms once. Cost per match and per group; the field's other entries are never visited.
/// </summary>
internal sealed partial class FieldTermGroups
{
    /// <summary>Term numbers past this are mapped through the term dictionary walk instead (the map would be too large).</summary>
    public const uint MaxOrdinalMap = 1 << 24;

    private const int CheckMask = (1 << 16) - 1;

    public static FieldTermGroups BuildFromOrdinals(IndexReader reader, int field, ReadOnlySpan<long> matches, CancellationToken cancellationToken)
    {
        var n = matches.Length;
        var limit = (int)reader.OrdinalLimit(field);
        var groups = new FieldTermGroups(n);
        var raw = ArrayPool<ulong>.Shared.Rent(Math.Max(1, n));
        var map = ArrayPool<int>.Shared.Rent(Math.Max(1, limit));
        var set = ArrayPool<uint>.Shared.Rent(16);
        var used = Array.Empty<uint>();
        try
        {
            var values = raw.AsSpan(0, n);
            reader.ReadOrdinals(field, matches, values);
            var numbers = map.AsSpan(0, limit);
            numbers.Clear();
            var multi = false;
            for (var p = 0; p < n; p++)
            {
                var v = values[p];
                if (v != 0)
                {
                    numbers[(int)(uint)v] = 1;
                    multi |= v >> 32 > 1;
                }
            }

            cancellationToken.ThrowIfCancellationRequested();
            if (multi)
            {
                for (var p = 0; p < n; p++)
                {
                    if (values[p] >> 32 > 1)
                    {
                        var count = ReadSet(reader, field, matches[p], ref set);
                        foreach (var number in set.AsSpan(0, count))
                        {
                            numbers[(int)number] = 1;
                        }
                    }
                }
            }

            // The numbers held, with their terms, sorted into term order: ordinal = rank.
            var distinct = 0;
            foreach (var mark in numbers)
            {
                distinct += mark;
            }

            used = ArrayPool<uint>.Shared.Rent(Math.Max(1, distinct));
            distinct = 0;
            for (var number = 1; number < limit; number++)
            {
                if (numbers[number] != 0)
                {
                    used[distinct++] = (uint)number;
                }
            }

            groups.MapToTermOrder(reader, field, used.AsSpan(0, distinct), numbers);
            cancellationToken.ThrowIfCancellationRequested();

            var first = groups._first;
            for (var p = 0; p < n; p++)
            {
                if (((p + 1) & CheckMask) == 0)
                {
                    cancellationToken.ThrowIfCancellationRequested();
                }

                var v = values[p];
                if (v == 0)
                {
                    continue;
                }

                if (v >> 32 == 1)
                {
                    first[p] = numbers[(int)(uint)v];
                    continue;
                }

                var count = ReadSet(reader, field, matches[p], ref set);
                var ordinals = System.Runtime.InteropServices.MemoryMarshal.Cast<uint, int>(set.AsSpan(0, count));
                for (var i = 0; i < count; i++)
                {
                    ordinals[i] = numbers[(int)set[i]];
                }

                ordinals.Sort();
                first[p] = ordinals[0];
                for (var i = 1; i < count; i++)
                {
                    groups.AddExtra(((long)p << 32) | (uint)ordinals[i]);
                }
            }

            return groups;
        }
        catch
        {
            groups.Dispose();
            throw;
        }
        finally
        {
            ArrayPool<ulong>.Shared.Return(raw);
            ArrayPool<int>.Shared.Return(map);
            ArrayPool<uint>.Shared.Return(set);
            if (used.Length > 0)
            {
                ArrayPool<uint>.Shared.Return(used);
            }
        }
    }

    /// <summary>Reads each used number's term, sorts them, adds the terms in order and sets <c>map[number]</c> to its ordinal.</summary>
    private void MapToTermOrder(IndexReader reader, int field, ReadOnlySpan<uint> used, Span<int> map)
    {
        var order = ArrayPool<int>.Shared.Rent(Math.Max(1, used.Length));
        var scratch = new FieldTermGroups(0);
        try
        {
            for (var i = 0; i < used.Length; i++)
            {
                if (!reader.TryReadOrdinalTerm(field, used[i], out var term))
                {
                    throw new InvalidDataException($"Term number {used[i]} of field {field} has no term in the index.");
                }

                scratch.AddTerm(term);
                order[i] = i;
            }

            Array.Sort(order, 0, used.Length, new TermOrder(scratch));
            for (var rank = 0; rank < used.Length; rank++)
            {
                AddTerm(scratch.Term(order[rank]));
                map[(int)used[order[rank]]] = rank;
            }
        }
        finally
        {
            scratch.Dispose();
            ArrayPool<int>.Shared.Return(order);
        }
    }

    private static int ReadSet(IndexReader reader, int field, long entry, ref uint[] set)
    {
        var count = reader.ReadOrdinalSet(field, entry, set);
        if (count < 0)
        {
            ArrayPool<uint>.Shared.Return(set);
            set = ArrayPool<uint>.Shared.Rent(-count);
            count = reader.ReadOrdinalSet(field, entry, set);
        }

        return count;
    }

    private sealed class TermOrder(FieldTermGroups terms) : IComparer<int>
    {
        public int Compare(int x, int y) => terms.Term(x).SequenceCompareTo(terms.Term(y));
    }
}
