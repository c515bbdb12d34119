using System.Buffers;
using System.Runtime.InteropServices;

namespace Ingest.Query.Execution;

/// <summary>
/// Set operations on ascending, distinct entry id lists, writing into a caller's list (cleared first). Intersections
/// gallop through the larger input when the sizes differ a lot; unions of many lists are one k-way merge.
/// </summary>
internal static class EntrySets
{
    /// <summary>Above this size ratio an intersection gallops (exponential then binary search) through the larger list.</summary>
    private const int GallopRatio = 32;

    public static void Intersect(ReadOnlySpan<long> a, ReadOnlySpan<long> b, List<long> output)
    {
        if (a.Length > b.Length)
        {
            var t = a;
            a = b;
            b = t;
        }

        CollectionsMarshal.SetCount(output, a.Length);
        var o = CollectionsMarshal.AsSpan(output);
        var n = b.Length / Math.Max(1, a.Length) >= GallopRatio ? IntersectGalloping(a, b, o) : IntersectLinear(a, b, o);
        CollectionsMarshal.SetCount(output, n);
    }

    public static void Difference(ReadOnlySpan<long> a, ReadOnlySpan<long> b, List<long> output)
    {
        CollectionsMarshal.SetCount(output, a.Length);
        var o = CollectionsMarshal.AsSpan(output);
        int i = 0, j = 0, n = 0;
        while (i < a.Length)
        {
            if (j == b.Length)
            {
                a[i..].CopyTo(o[n..]);
                n += a.Length - i;
                break;
            }

            if (a[i] < b[j])
            {
                o[n++] = a[i++];
            }
            else if (a[i] > b[j])
            {
                j++;
            }
            else
            {
                i++;
                j++;
            }
        }

        CollectionsMarshal.SetCount(output, n);
    }

    /// <summary>The union of <paramref name="inputs"/> (each ascending and distinct) into <paramref name="output"/>.</summary>
    public static void Union(IReadOnlyList<List<long>> inputs, List<long> output, CancellationToken ct)
    {
        var total = 0L;
        foreach (var input in inputs)
        {
            total += input.Count;
        }

        CollectionsMarshal.SetCount(output, (int)Math.Min(total, Array.MaxLength));
        var o = CollectionsMarshal.AsSpan(output);
        int n;
        if (inputs.Count == 0)
        {
            n = 0;
        }
        else if (inputs.Count == 1)
        {
            CollectionsMarshal.AsSpan(inputs[0]).CopyTo(o);
            n = inputs[0].Count;
        }
        else if (inputs.Count == 2)
        {
            n = UnionTwo(CollectionsMarshal.AsSpan(inputs[0]), CollectionsMarshal.AsSpan(inputs[1]), o);
        }
        else
        {
            n = UnionMany(inputs, o, ct);
        }

        CollectionsMarshal.SetCount(output, n);
    }

    private static int IntersectLinear(ReadOnlySpan<long> a, ReadOnlySpan<long> b, Span<long> o)
    {
        int i = 0, j = 0, n = 0;
        while (i < a.Length && j < b.Length)
        {
            if (a[i] < b[j])
            {
                i++;
            }
            else if (a[i] > b[j])
            {
                j++;
            }
            else
            {
                o[n++] = a[i];
                i++;
                j++;
            }
        }

        return n;
    }

    private static int IntersectGalloping(ReadOnlySpan<long> small, ReadOnlySpan<long> large, Span<long> o)
    {
        var n = 0;
        var low = 0;
        foreach (var x in small)
        {
            // Gallop: find a window [low, high) of large that must hold x if it is there.
            var step = 1;
            var high = low;
            while (high < large.Length && large[high] < x)
            {
                low = high + 1;
                high += step;
                step <<= 1;
            }

            var found = large[low..Math.Min(high + 1, large.Length)].BinarySearch(x);
            if (found >= 0)
            {
                o[n++] = x;
                low += found + 1;
            }
            else
            {
                low += ~found;
            }

            if (low >= large.Length)
            {
                break;
            }
        }

        return n;
    }

    private static int UnionTwo(ReadOnlySpan<long> a, ReadOnlySpan<long> b, Span<long> o)
    {
        int i = 0, j = 0, n = 0;
        while (i < a.Length && j < b.Length)
        {
            if (a[i] < b[j])
            {
                o[n++] = a[i++];
            }
            else if (a[i] > b[j])
            {
                o[n++] = b[j++];
            }
            else
            {
                o[n++] = a[i++];
                j++;
            }
        }

        a[i..].CopyTo(o[n..]);
        n += a.Length - i;
        b[j..].CopyTo(o[n..]);
        n += b.Length - j;
        return n;
    }

    /// <summary>A k-way merge: a binary min-heap of the inputs' heads (pooled arrays), dropping repeats as they surface.</summary>
    private static int UnionMany(IReadOnlyList<List<long>> inputs, Span<long> o, CancellationToken ct)
    {
        var k = inputs.Count;
        var heap = ArrayPool<int>.Shared.Rent(k);
        var positions = ArrayPool<int>.Shared.Rent(k);
        try
        {
            var size = 0;
            for (var i = 0; i < k; i++)
            {
                positions[i] = 0;
                if (inputs[i].Count > 0)
                {
                    heap[size++] = i;
                }
            }

            for (var i = (size / 2) - 1; i >= 0; i--)
            {
                SiftDown(heap, size, i, inputs, positions);
            }

            var n = 0;
            var taken = 0;
            while (size > 0)
            {
                if ((++taken & CancellationCheck.Mask) == 0)
                {
                    ct.ThrowIfCancellationRequested();
                }

                var top = heap[0];
                var value = inputs[top][positions[top]];
                if (n == 0 || o[n - 1] != value)
                {
                    o[n++] = value;
                }

                if (++positions[top] == inputs[top].Count)
                {
                    heap[0] = heap[--size];
                }

                SiftDown(heap, size, 0, inputs, positions);
            }

            return n;
        }
        finally
        {
            ArrayPool<int>.Shared.Return(heap);
            ArrayPool<int>.Shared.Return(positions);
        }
    }

    private static void SiftDown(int[] heap, int size, int i, IReadOnlyList<List<long>> inputs, int[] positions)
    {
        while (true)
        {
            var smallest = i;
            var left = (2 * i) + 1;
            var right = left + 1;
            if (left < size && Head(heap[left], inputs, positions) < Head(heap[smallest], inputs, positions))
            {
                smallest = left;
            }

            if (right < size && Head(heap[right], inputs, positions) < Head(heap[smallest], inputs, positions))
            {
                smallest = right;
            }

            if (smallest == i)
            {
                return;
            }

            (heap[i], heap[smallest]) = (heap[smallest], heap[i]);
            i = smallest;
        }
    }

    private static long Head(int input, IReadOnlyList<List<long>> inputs, int[] positions) => inputs[input][positions[input]];
}
