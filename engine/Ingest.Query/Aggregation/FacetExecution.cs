using System.Buffers;
using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Aggregation;

/// <summary>
/// Counts every facet of a query over the match set from the fields' terms (each field walked once), then writes
/// <c>{"facet": name, "value": v, "count": n}</c> rows (descending count, then value; values no match holds left out)
/// and <c>{"facet": name, "range": "[a, b)", "count": n}</c> rows (every range in order, from "-inf" to "inf": no '+', which JSON writers escape). A document counts once per
/// value it holds, and once per range any of its values falls in.
/// </summary>
internal static class FacetExecution
{
    private static readonly JsonEncodedText FacetName = JsonEncodedText.Encode("facet");
    private static readonly JsonEncodedText ValueName = JsonEncodedText.Encode("value");
    private static readonly JsonEncodedText RangeName = JsonEncodedText.Encode("range");
    private static readonly JsonEncodedText CountName = JsonEncodedText.Encode("count");

    public static long Write(AggregationQuery query, IndexReader reader, ReadOnlySpan<long> matches, Utf8JsonWriter writer, CancellationToken cancellationToken)
    {
        using var values = new MatchFieldValues(reader, matches.Length);
        var counts = new long[query.Facets.Count][];
        try
        {
            long rows = 0;
            for (var f = 0; f < counts.Length; f++)
            {
                var facet = query.Facets[f];
                if (facet.Ranges == null)
                {
                    var terms = values.Terms(facet.Field, facet.Type, matches, cancellationToken);
                    counts[f] = CountValues(terms, matches.Length);
                    rows += terms.Cardinality;
                }
                else
                {
                    counts[f] = facet.SingleValued
                        ? CountColumnRanges(values.Numbers(facet.Field, matches), matches.Length, facet.Ranges)
                        : CountRanges(values.Terms(facet.Field, facet.Type, matches, cancellationToken), matches.Length, facet.Ranges);
                    rows += facet.Ranges.Length + 1;
                }
            }

            for (var f = 0; f < counts.Length; f++)
            {
                var facet = query.Facets[f];
                if (facet.Ranges == null)
                {
                    WriteValues(writer, facet, values.Terms(facet.Field, facet.Type, matches, cancellationToken), counts[f]);
                }
                else
                {
                    WriteRanges(writer, facet, facet.Ranges, counts[f]);
                }
            }

            return rows;
        }
        finally
        {
            foreach (var count in counts)
            {
                if (count != null)
                {
                    ArrayPool<long>.Shared.Return(count);
                }
            }
        }
    }

    private static long[] CountValues(FieldTermGroups terms, int matchCount)
    {
        var counts = Rent(terms.Cardinality);
        var first = terms.First;
        for (var p = 0; p < matchCount; p++)
        {
            if (first[p] >= 0)
            {
                counts[first[p]]++;
            }
        }

        foreach (var extra in terms.Extra)
        {
            counts[(int)extra]++;
        }

        return counts;
    }

    private static long[] CountRanges(FieldTermGroups terms, int matchCount, double[] boundaries)
    {
        var counts = Rent(boundaries.Length + 1);
        var rangeOf = ArrayPool<int>.Shared.Rent(Math.Max(1, terms.Cardinality));
        try
        {
            for (var ordinal = 0; ordinal < terms.Cardinality; ordinal++)
            {
                rangeOf[ordinal] = RangeOf(boundaries, IndexReader.DecodeNumberTerm(terms.Term(ordinal)));
            }

            var first = terms.First;
            for (var p = 0; p < matchCount; p++)
            {
                if (first[p] >= 0)
                {
                    counts[rangeOf[first[p]]]++;
                }
            }

            // A match's further values ascend, so its ranges do: count a range when it differs from the last one counted.
            var position = -1L;
            var last = -1;
            foreach (var extra in terms.Extra)
            {
                if (extra >> 32 != position)
                {
                    position = extra >> 32;
                    last = rangeOf[first[position]];
                }

                var range = rangeOf[(int)extra];
                if (range != last)
                {
                    counts[range]++;
                    last = range;
                }
            }

            return counts;
        }
        finally
        {
            ArrayPool<int>.Shared.Return(rangeOf);
        }
    }

    /// <summary>Range counts of a single-valued field from its column: one ordered read instead of a walk of every distinct value.</summary>
    private static long[] CountColumnRanges(double[] values, int matchCount, double[] boundaries)
    {
        var counts = Rent(boundaries.Length + 1);
        for (var p = 0; p < matchCount; p++)
        {
            if (!double.IsNaN(values[p]))
            {
                counts[RangeOf(boundaries, values[p])]++;
            }
        }

        return counts;
    }

    /// <summary>The range index of <paramref name="value"/>: how many boundaries are at or below it.</summary>
    private static int RangeOf(double[] boundaries, double value)
    {
        var found = Array.BinarySearch(boundaries, value);
        return found >= 0 ? found + 1 : ~found;
    }

    private static void WriteValues(Utf8JsonWriter writer, BoundFacet facet, FieldTermGroups terms, long[] counts)
    {
        // Descending count, then ascending value (ordinal): one sortable key per value.
        var order = ArrayPool<long>.Shared.Rent(Math.Max(1, terms.Cardinality));
        try
        {
            for (var ordinal = 0; ordinal < terms.Cardinality; ordinal++)
            {
                order[ordinal] = ((int.MaxValue - counts[ordinal]) << 32) | (uint)ordinal;
            }

            order.AsSpan(0, terms.Cardinality).Sort();
            for (var i = 0; i < terms.Cardinality; i++)
            {
                var ordinal = (int)order[i];
                writer.WriteStartObject();
                writer.WriteString(FacetName, facet.Name);
                writer.WritePropertyName(ValueName);
                AggregationJson.WriteTerm(writer, facet.Type, terms.Term(ordinal));
                writer.WriteNumber(CountName, counts[ordinal]);
                writer.WriteEndObject();
            }
        }
        finally
        {
            ArrayPool<long>.Shared.Return(order);
        }
    }

    private static void WriteRanges(Utf8JsonWriter writer, BoundFacet facet, double[] boundaries, long[] counts)
    {
        for (var range = 0; range <= boundaries.Length; range++)
        {
            var low = range == 0 ? "-inf" : boundaries[range - 1].ToString("R", CultureInfo.InvariantCulture);
            var high = range == boundaries.Length ? "inf" : boundaries[range].ToString("R", CultureInfo.InvariantCulture);
            writer.WriteStartObject();
            writer.WriteString(FacetName, facet.Name);
            writer.WriteString(RangeName, $"[{low}, {high})");
            writer.WriteNumber(CountName, counts[range]);
            writer.WriteEndObject();
        }
    }

    private static long[] Rent(int length)
    {
        var array = ArrayPool<long>.Shared.Rent(Math.Max(1, length));
        array.AsSpan(0, length).Clear();
        return array;
    }
}
