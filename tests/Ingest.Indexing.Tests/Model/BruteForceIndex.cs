using System.Globalization;
using System.Text.Json;
using Ingest.Indexing.CrashWorker;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Storage;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Model;

/// <summary>
/// The model the randomized index tests check against: random documents with nested objects, arrays, nulls, missing
/// and wrongly typed values, and a brute-force evaluation of every query over a set of documents (the real extractor
/// gives each document's terms; the index must return, for each query, exactly the documents whose terms match).
/// </summary>
internal static class BruteForceIndex
{
    /// <summary>Eight fields over every type, nested paths and arrays (the crash worker indexes the same fields).</summary>
    public static readonly IndexDefinition Definition = CrashIndexes.A with { Name = "Orders/Model" };

    private static readonly string[] Names = ["Acme", "acme", "Globex", "Initech", "", "Ünïcode", "umbrella"];
    private static readonly string[] Words = ["red", "Blue", "green", "fast", "slow", "déjà", "vu", "42"];
    private static readonly string[] Dates = ["2024-01-02T03:04:05Z", "2024-01-02", "2023-12-31T23:00:00+02:00", "1970-01-01T00:00:00Z", "yesterday"];

    /// <summary>
    /// Checks every term lookup (each term in <paramref name="universe"/>, which gathers every term ever seen, so removed
    /// ones must be gone), range, range-from, prefix, exists and null query, the numeric columns and the id mapping of
    /// <paramref name="reader"/> against <paramref name="model"/> (the indexed documents by id). Returns the expected
    /// null count per field.
    /// </summary>
    public static long[] Verify(IndexReader reader, IndexDefinition definition, IReadOnlyDictionary<string, byte[]> model, HashSet<(int Field, string Hex)> universe, Random random)
    {
        var fields = definition.Fields.Count;
        var extractor = new DocumentExtractor([.. definition.Fields.Select(CompiledIndexField.Compile)]);
        var expectedTerms = new Dictionary<(int Field, string Hex), SortedSet<string>>();
        var expectedNulls = new SortedSet<string>[fields];
        var expectedFirst = new Dictionary<(int Field, string Id), string>();
        for (var f = 0; f < fields; f++)
        {
            expectedNulls[f] = new SortedSet<string>(StringComparer.Ordinal);
        }

        using var terms = new TermBuffer();
        var tallies = new FieldTally[fields];
        foreach (var (id, json) in model)
        {
            terms.Clear();
            extractor.Extract(json, terms, tallies);
            for (var t = 0; t < terms.Count; t++)
            {
                var key = (terms.FieldOf(t), Convert.ToHexString(terms[t]));
                universe.Add(key);
                if (!expectedTerms.TryGetValue(key, out var ids))
                {
                    expectedTerms[key] = ids = new SortedSet<string>(StringComparer.Ordinal);
                }

                ids.Add(id);
                expectedFirst.TryAdd((key.Item1, id), key.Item2);
            }

            for (var f = 0; f < fields; f++)
            {
                if (tallies[f].IsNull)
                {
                    expectedNulls[f].Add(id);
                }
            }
        }

        var result = new List<long>();

        // Every term ever seen (so a removed one must be gone), plus a term no document has.
        foreach (var key in universe.Append((Field: 1, Hex: "FFFF")))
        {
            result.Clear();
            reader.Lookup(key.Field, Convert.FromHexString(key.Hex), result);
            Assert.Equal(
                expectedTerms.TryGetValue(key, out var ids) ? ids : [],
                DocumentIds(reader, result));
        }

        var byField = universe.GroupBy(k => k.Field).ToDictionary(g => g.Key, g => g.Select(k => Convert.FromHexString(k.Hex)).ToArray());
        for (var f = 0; f < fields; f++)
        {
            result.Clear();
            reader.Nulls(f, result);
            Assert.Equal(expectedNulls[f], DocumentIds(reader, result));
            result.Clear();
            reader.Exists(f, result);
            Assert.Equal(Matching(expectedTerms, f, _ => true), DocumentIds(reader, result));
            if (!byField.TryGetValue(f, out var known))
            {
                continue;
            }

            for (var i = 0; i < 4; i++)
            {
                var from = known[random.Next(known.Length)];
                var to = known[random.Next(known.Length)];
                result.Clear();
                reader.Range(f, from, to, result);
                Assert.Equal(Matching(expectedTerms, f, t => t.SequenceCompareTo(from) >= 0 && t.SequenceCompareTo(to) < 0), DocumentIds(reader, result));
                result.Clear();
                reader.RangeFrom(f, from, result);
                Assert.Equal(Matching(expectedTerms, f, t => t.SequenceCompareTo(from) >= 0), DocumentIds(reader, result));
                var prefix = from[..random.Next(from.Length + 1)];
                result.Clear();
                reader.Prefix(f, prefix, result);
                Assert.Equal(Matching(expectedTerms, f, t => t.StartsWith(prefix)), DocumentIds(reader, result));
            }
        }

        var entries = new HashSet<long>();
        foreach (var id in model.Keys)
        {
            Assert.True(reader.TryGetEntry(id, out var entry), id);
            Assert.True(entries.Add(entry), $"entry {entry} given twice");
            Assert.True(reader.TryGetDocumentId(entry, out var back));
            Assert.Equal(id, back);
            for (var f = 0; f < fields; f++)
            {
                var type = definition.Fields[f].Type;
                if (type == IndexFieldType.Number)
                {
                    var has = expectedFirst.TryGetValue((f, id), out var hex);
                    Assert.Equal(has, reader.TryReadNumber(f, entry, out var number));
                    Assert.Equal(has ? NumberTerm.Read(Convert.FromHexString(hex!)) : 0, number);
                }
                else if (type == IndexFieldType.DateTime)
                {
                    var has = expectedFirst.TryGetValue((f, id), out var hex);
                    Assert.Equal(has, reader.TryReadDateTimeTicks(f, entry, out var ticks));
                    Assert.Equal(has ? DateTimeTerm.Read(Convert.FromHexString(hex!)) : 0, ticks);
                }
            }
        }

        CheckColumnReads(reader, definition, entries, random);
        CheckVisitedEntries(reader, definition.Fields.Count);
        Assert.Equal(model.Count, reader.EntryCount);
        var nulls = new long[fields];
        for (var f = 0; f < fields; f++)
        {
            nulls[f] = expectedNulls[f].Count;
        }

        return nulls;
    }

    private static void CheckColumn<T>(long[] ids, Func<long[], T[], int> readAll, ReadOne<T> readOne, T none)
    {
        var values = new T[ids.Length];
        var found = readAll(ids, values);
        var expected = 0;
        for (var i = 0; i < ids.Length; i++)
        {
            var has = readOne(ids[i], out var one);
            expected += has ? 1 : 0;
            Assert.Equal(has ? one : none, values[i]);
        }

        Assert.Equal(expected, found);
    }

    /// <summary>Each term's entries handed over in chunks equal the entries appended to a list.</summary>
    private static void CheckVisitedEntries(IndexReader reader, int fields)
    {
        var appended = new List<long>();
        var sink = new CollectingSink([]);
        for (var f = 0; f < fields; f++)
        {
            var terms = reader.EnumerateTerms(f);
            while (terms.MoveNext())
            {
                appended.Clear();
                terms.AppendEntries(appended);
                sink.Entries.Clear();
                terms.VisitEntries(ref sink);
                Assert.Equal(appended, sink.Entries);
            }
        }
    }

    /// <summary>
    /// The bulk column reads (one forward walk) against the per-entry reads, over a random ascending subset of the
    /// entries mixed with ids no document holds.
    /// </summary>
    private static void CheckColumnReads(IndexReader reader, IndexDefinition definition, HashSet<long> entries, Random random)
    {
        var picked = new List<long>();
        foreach (var entry in entries)
        {
            if (random.Next(3) != 0)
            {
                picked.Add(entry);
            }
        }

        var max = entries.Count == 0 ? 0 : entries.Max();
        for (var i = random.Next(8); i > 0; i--)
        {
            picked.Add(random.NextInt64(max + 100));
        }

        picked.Sort();
        var ids = picked.Distinct().ToArray();
        for (var f = 0; f < definition.Fields.Count; f++)
        {
            var field = f;
            switch (definition.Fields[f].Type)
            {
                case IndexFieldType.Number:
                    CheckColumn(ids, (e, v) => reader.ReadNumbers(field, e, v), (long e, out double v) => reader.TryReadNumber(field, e, out v), double.NaN);
                    break;
                case IndexFieldType.DateTime:
                    CheckColumn(ids, (e, v) => reader.ReadDateTimeTicks(field, e, v), (long e, out long v) => reader.TryReadDateTimeTicks(field, e, out v), -1L);
                    break;
            }
        }
    }

    private static SortedSet<string> Matching(Dictionary<(int Field, string Hex), SortedSet<string>> expected, int field, Func<byte[], bool> term)
    {
        var ids = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var (key, documents) in expected)
        {
            if (key.Field == field && term(Convert.FromHexString(key.Hex)))
            {
                ids.UnionWith(documents);
            }
        }

        return ids;
    }

    /// <summary>The documents of a query result, checking that its entry ids ascend without repeats.</summary>
    private static SortedSet<string> DocumentIds(IndexReader reader, List<long> entries)
    {
        for (var i = 1; i < entries.Count; i++)
        {
            Assert.True(entries[i - 1] < entries[i], $"entry ids not ascending: {entries[i - 1]}, {entries[i]}");
        }

        var ids = new SortedSet<string>(StringComparer.Ordinal);
        foreach (var entry in entries)
        {
            Assert.True(reader.TryGetDocumentId(entry, out var id), $"entry {entry} has no document");
            ids.Add(id);
        }

        return ids;
    }

    public static byte[] RandomDocument(Random random)
    {
        if (random.Next(60) == 0)
        {
            return "{\"Tags\":[\"broken\""u8.ToArray();
        }

        using var stream = new MemoryStream();
        using (var w = new Utf8JsonWriter(stream))
        {
            w.WriteStartObject();
            switch (random.Next(6))
            {
                case 0: break;
                case 1: w.WriteNull("Customer"); break;
                case 2: w.WriteString("Customer", "scalar where the path goes on"); break;
                case 3: w.WriteStartObject("Customer"); w.WriteNumber("Name", 5); w.WriteEndObject(); break;
                default: w.WriteStartObject("Customer"); w.WriteString("Name", Pick(random, Names)); w.WriteEndObject(); break;
            }

            if (random.Next(5) != 0)
            {
                w.WriteStartArray("Tags");
                for (var n = random.Next(5); n > 0; n--)
                {
                    switch (random.Next(8))
                    {
                        case 0: w.WriteNullValue(); break;
                        case 1: w.WriteNumberValue(random.Next(3)); break;
                        default: w.WriteStringValue(Pick(random, Names)); break;
                    }
                }

                w.WriteEndArray();
            }

            if (random.Next(3) != 0)
            {
                w.WriteString("Notes", string.Join(random.Next(2) == 0 ? " " : ", ", Enumerable.Range(0, random.Next(4)).Select(_ => Pick(random, Words))));
            }

            switch (random.Next(5))
            {
                case 0: break;
                case 1: w.WriteString("Total", "12"); break;
                case 2: w.WriteNumber("Total", random.Next(-3, 4) + 0.5); break;
                default: w.WriteNumber("Total", random.Next(-3, 10)); break;
            }

            switch (random.Next(4))
            {
                case 0: break;
                case 1: w.WriteNumber("At", random.Next(3) * 86_400_000L); break;
                default: w.WriteString("At", Pick(random, Dates)); break;
            }

            switch (random.Next(4))
            {
                case 0: w.WriteString("Paid", "yes"); break;
                case 1: break;
                default: w.WriteBoolean("Paid", random.Next(2) == 0); break;
            }

            if (random.Next(3) != 0)
            {
                w.WriteStartArray("Lines");
                for (var n = random.Next(4); n > 0; n--)
                {
                    if (random.Next(10) == 0)
                    {
                        w.WriteStringValue("not a line");
                        continue;
                    }

                    w.WriteStartObject();
                    if (random.Next(4) != 0)
                    {
                        w.WriteNumber("Qty", random.Next(1, 6));
                    }

                    w.WriteString("Sku", "SKU-" + random.Next(6).ToString(CultureInfo.InvariantCulture) + (random.Next(2) == 0 ? "a" : "A"));
                    w.WriteEndObject();
                }

                w.WriteEndArray();
            }

            w.WriteEndObject();
        }

        return stream.ToArray();
    }

    private static string Pick(Random random, string[] values) => values[random.Next(values.Length)];

    private delegate bool ReadOne<T>(long entry, out T value);

    private readonly record struct CollectingSink(List<long> Entries) : IEntrySink
    {
        public void Add(ReadOnlySpan<long> entries)
        {
            Assert.False(entries.IsEmpty, "an empty chunk");
            Entries.AddRange(entries);
        }
    }
}
