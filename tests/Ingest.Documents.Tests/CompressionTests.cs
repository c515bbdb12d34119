using System.Buffers.Binary;
using System.Globalization;
using System.Text;

namespace Ingest.Documents.Tests;

/// <summary>Bodies stored compressed read back as the JSON that was put; dictionaries train, retrain, stay while used, and go.</summary>
public sealed class CompressionTests
{
    private static DocumentStoreOptions Options(int trainAfter = 50)
    {
        var options = TestDirectory.Options();
        options.Compression = true;
        options.DictionaryTrainingDocuments = trainAfter;
        return options;
    }

    [Fact]
    public void Random_bodies_from_empty_to_16_MiB_round_trip_through_gets_the_changes_feed_and_a_reopen() => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        using var dir = new TestDirectory();
        var expected = new Dictionary<string, string>();
        var sizes = new List<int> { 0, 1, 10, 63, 64, 65, 200, 1000, 4096, 70_000, 1 << 20 };
        for (var i = 0; i < 40; i++)
        {
            sizes.Add(rnd.Next(5000));
        }

        using (var store = DocumentStore.Open(dir.Path, Options(trainAfter: 20)))
        {
            for (var i = 0; i < sizes.Count; i++)
            {
                var body = RandomBody(rnd, sizes[i]);
                expected[$"docs/{i}"] = body;
                store.Write(new WriteBatch().Put($"docs/{i}", "Mixed", body));
            }

            // The largest body the store takes, incompressible: base64 of random bytes fills 16 MiB.
            var largest = LargestIncompressible(rnd, store.Options.MaxBodyBytes);
            expected["docs/largest"] = largest;
            store.Write(new WriteBatch().Put("docs/largest", "Mixed", largest));
            Check(store, expected);
            Assert.True(CompressedCount(store) > sizes.Count / 2, "most bodies are stored compressed");
        }

        using (var reopened = DocumentStore.Open(dir.Path, Options(trainAfter: 20)))
        {
            Check(reopened, expected);
            using var reader = reopened.BeginRead();
            Assert.Empty(reader.VerifyDocuments().Problems);
        }
    });

    [Fact]
    public void Small_bodies_and_ones_compression_would_not_shrink_by_a_sixteenth_are_stored_raw()
    {
        using var dir = new TestDirectory();
        using var store = DocumentStore.Open(dir.Path, Options());
        var rnd = new Random(7);
        var shortNoise = $"{{\"b\":\"{Convert.ToBase64String(RandomBytes(rnd, 60))}\"}}";
        var longNoise = $"{{\"b\":\"{Convert.ToBase64String(RandomBytes(rnd, 3000))}\"}}";
        var text = $"{{\"t\":\"{new string('x', 3000)}\"}}";
        store.Write(new WriteBatch().Put("noise", "C", shortNoise).Put("small", "C", "{\"a\":1}").Put("text", "C", text).Put("base64", "C", longNoise));
        using var reader = store.BeginRead();
        Assert.True(reader.TryGet("noise", out var view));
        Assert.Equal(DocumentFlags.None, view.Flags); // 86 bytes of noise: the frame's overhead eats what entropy coding saves
        Assert.Equal(shortNoise, Encoding.UTF8.GetString(view.Body));
        Assert.True(reader.TryGet("small", out view));
        Assert.Equal(DocumentFlags.None, view.Flags);
        Assert.True(reader.TryGet("text", out view));
        Assert.Equal(DocumentFlags.Compressed, view.Flags);
        Assert.True(view.StoredBody.Length < 100);
        var textStored = view.StoredBody.Length;

        // Base64 of random bytes uses 6 bits of each 8: entropy coding alone saves about a quarter.
        Assert.True(reader.TryGet("base64", out view));
        Assert.True(view.Flags == DocumentFlags.None || view.StoredBody.Length <= longNoise.Length * 15 / 16);
        Assert.Equal(longNoise, Encoding.UTF8.GetString(view.Body));
        var stats = reader.GetStats().Collections.Single();
        Assert.Equal(shortNoise.Length + 7 + textStored + view.StoredBody.Length, stats.StoredBodyBytes);
        Assert.Equal(shortNoise.Length + 7 + text.Length + longNoise.Length, stats.BodyBytes);
    }

    [Fact]
    public void A_dictionary_trains_retrains_when_the_ratio_degrades_keeps_old_ones_while_used_and_drops_them_after()
    {
        using var dir = new TestDirectory();
        var options = Options(trainAfter: 100);
        using (var store = DocumentStore.Open(dir.Path, options))
        {
            Put(store, "logs/a/", 0, 100, LogA);
            var first = Stats(store).DictionaryId;
            Assert.NotEqual(0, first);
            Put(store, "logs/a/", 100, 100, LogA); // same shape: the ratio holds, no retraining
            Assert.Equal(first, Stats(store).DictionaryId);
            Assert.Equal(first, DictionaryOf(store, "logs/a/150"));

            // A different shape: the first dictionary knows none of it, the window's ratio degrades.
            Put(store, "logs/b/", 0, 100, LogB);
            var second = Stats(store).DictionaryId;
            Assert.NotEqual(first, second);
            Assert.True(second > first);
            Put(store, "logs/b/", 100, 10, LogB);
            Assert.Equal(second, DictionaryOf(store, "logs/b/105"));
            Assert.Equal(first, DictionaryOf(store, "logs/a/150"));
            Assert.Equal(2, Verify(store).Dictionaries);
        }

        using (var reopened = DocumentStore.Open(dir.Path, options))
        {
            // Old-dictionary reads after retraining and a reopen.
            Assert.Equal(LogA(7), Encoding.UTF8.GetString(reopened.Get("logs/a/7")!.Body.Span));
            Assert.Equal(LogB(105), Encoding.UTF8.GetString(reopened.Get("logs/b/105")!.Body.Span));

            // Every document of the first dictionary goes (deleted or overwritten): it is dropped with the last one.
            var batch = new WriteBatch();
            for (var i = 0; i < 200; i++)
            {
                // A quarter overwritten (50 puts: fewer than a window, so no retraining here), the rest deleted.
                _ = i % 4 != 1 ? batch.Delete($"logs/a/{i}") : batch.Put($"logs/a/{i}", "Logs", "{\"replaced\":true}");
            }

            var beforeLast = Verify(reopened);
            Assert.Equal(2, beforeLast.Dictionaries);
            reopened.Write(batch);
            var after = Verify(reopened);
            Assert.Empty(after.Problems);
            Assert.Equal(1, after.Dictionaries);
            Assert.Equal(LogB(3), Encoding.UTF8.GetString(reopened.Get("logs/b/3")!.Body.Span));
        }
    }

    [Fact]
    public void A_reader_keeps_reading_a_dictionary_dropped_after_its_snapshot()
    {
        using var dir = new TestDirectory();
        using var store = DocumentStore.Open(dir.Path, Options(trainAfter: 100));
        Put(store, "logs/a/", 0, 100, LogA);
        Put(store, "logs/b/", 0, 100, LogB); // retrains; logs/a keep the first dictionary
        using var old = store.BeginRead();
        var batch = new WriteBatch();
        for (var i = 0; i < 100; i++)
        {
            batch.Delete($"logs/a/{i}");
        }

        store.Write(batch);
        Assert.Equal(1, Verify(store).Dictionaries);
        Assert.True(old.TryGet("logs/a/42", out var view));
        Assert.Equal(LogA(42), Encoding.UTF8.GetString(view.Body));
    }

    [Fact]
    public void Turning_compression_off_stores_new_bodies_raw_and_still_reads_compressed_ones()
    {
        using var dir = new TestDirectory();
        using (var store = DocumentStore.Open(dir.Path, Options(trainAfter: 100)))
        {
            Put(store, "logs/a/", 0, 150, LogA);
        }

        var off = Options();
        off.Compression = false;
        using var reopened = DocumentStore.Open(dir.Path, off);
        Put(reopened, "logs/a/", 150, 10, LogA);
        using var reader = reopened.BeginRead();
        Assert.True(reader.TryGet("logs/a/155", out var raw));
        Assert.Equal(DocumentFlags.None, raw.Flags);
        Assert.Equal(LogA(155), Encoding.UTF8.GetString(raw.Body));
        Assert.True(reader.TryGet("logs/a/120", out var compressed));
        Assert.Equal(DocumentFlags.Compressed, compressed.Flags);
        Assert.Equal(LogA(120), Encoding.UTF8.GetString(compressed.Body));
        Assert.Empty(reader.VerifyDocuments().Problems);
    }

    [Fact]
    public void Verification_reports_a_damaged_compressed_document_and_a_missing_dictionary_by_id()
    {
        using var dir = new TestDirectory();
        using var store = DocumentStore.Open(dir.Path, Options(trainAfter: 100));
        Put(store, "logs/a/", 0, 120, LogA);
        long etag;
        using (var reader = store.BeginRead())
        {
            Assert.True(reader.TryGet("logs/a/110", out var view));
            etag = view.Etag;
        }

        // Flip bytes of the zstd frame of logs/a/110 in place, as a bad disk or a bug would.
        using (var tx = store.Environment.BeginWrite())
        {
            var byEtag = tx.OpenTree("docs/by-etag")!;
            var key = new byte[8];
            BinaryPrimitives.WriteInt64BigEndian(key, etag);
            Assert.True(byEtag.TryGet(key, out var value));
            var damaged = value.ToArray();
            for (var i = damaged.Length - 12; i < damaged.Length; i++)
            {
                damaged[i] ^= 0x5A;
            }

            byEtag.Put(key, damaged);
            tx.Commit();
        }

        using (var reader = store.BeginRead())
        {
            var report = reader.VerifyDocuments();
            Assert.Contains(report.Problems, p => p.Contains("'logs/a/110'", StringComparison.Ordinal));
            Assert.True(reader.TryGet("logs/a/110", out var view));
            try
            {
                _ = view.Body.Length;
                Assert.Fail("a damaged body must not read as JSON");
            }
            catch (InvalidDataException)
            {
            }

            Assert.Equal(LogA(111), Encoding.UTF8.GetString(store.Get("logs/a/111")!.Body.Span));
        }
    }

    [Fact]
    public void Reading_compressed_bodies_allocates_nothing_per_document()
    {
        using var dir = new TestDirectory();
        using var store = DocumentStore.Open(dir.Path, Options(trainAfter: 100));
        Put(store, "logs/a/", 0, 100, LogA);
        Put(store, "logs/a/", 100, 400, LogA); // compressed with the dictionary the first 100 trained
        using var reader = store.BeginRead();
        var ids = Enumerable.Range(100, 400).Select(i => "logs/a/" + i.ToString(CultureInfo.InvariantCulture)).ToArray();
        long total = 0;
        foreach (var id in ids.AsSpan(0, 50))
        {
            Assert.True(reader.TryGet(id, out var view)); // warm-up: the reader's buffer and decompression context
            total += view.Body.Length;
        }

        // No assertion inside the measured loop: xunit's comparers allocate.
        var compressed = 0;
        var before = GC.GetAllocatedBytesForCurrentThread();
        foreach (var id in ids)
        {
            if (reader.TryGet(id, out var view) && (view.Flags & DocumentFlags.Compressed) != 0)
            {
                compressed++;
                total += view.Body.Length;
            }
        }

        var perDocument = (double)(GC.GetAllocatedBytesForCurrentThread() - before) / ids.Length;
        Assert.Equal(ids.Length, compressed);
        Assert.True(perDocument < 1, $"{perDocument:N1} B allocated per compressed body read");
        Assert.True(total > 0);
    }

    internal static string LogA(int i) => string.Create(
        CultureInfo.InvariantCulture,
        $"{{\"ts\":\"2026-11-27T10:{i % 60:00}:{i % 59:00}.{i % 1000:000}Z\",\"level\":\"{(i % 7 == 0 ? "WARN" : "INFO")}\",\"service\":\"checkout\",\"host\":\"web-{i % 4}\",\"message\":\"order {i} paid in {i % 300} ms by customer {i % 97}\",\"traceId\":\"{i * 7919:x16}\"}}");

    internal static string LogB(int i) => string.Create(
        CultureInfo.InvariantCulture,
        $"{{\"timestamp\":{1_700_000_000 + i},\"severity\":\"error\",\"component\":\"kafka-consumer-{i % 3}\",\"exception\":\"System.TimeoutException: partition {i % 12} rebalanced while fetching offset {i * 31}\",\"attempt\":{i % 5},\"region\":\"eu-west\"}}");

    private static void Put(DocumentStore store, string prefix, int from, int count, Func<int, string> body)
    {
        var batch = new WriteBatch();
        for (var i = from; i < from + count; i++)
        {
            batch.Put(prefix + i.ToString(CultureInfo.InvariantCulture), "Logs", body(i));
        }

        store.Write(batch);
    }

    private static CollectionStats Stats(DocumentStore store)
    {
        using var reader = store.BeginRead();
        return reader.GetStats().Collections.Single();
    }

    private static DocumentVerificationReport Verify(DocumentStore store)
    {
        using var reader = store.BeginRead();
        var report = reader.VerifyDocuments();
        Assert.Empty(report.Problems);
        return report;
    }

    private static long DictionaryOf(DocumentStore store, string id)
    {
        using var reader = store.BeginRead();
        Assert.True(reader.TryGet(id, out var view));
        Assert.Equal(DocumentFlags.Compressed, view.Flags);
        return BinaryPrimitives.ReadUInt32LittleEndian(view.StoredBody);
    }

    private static int CompressedCount(DocumentStore store)
    {
        using var reader = store.BeginRead();
        var count = 0;
        foreach (var change in reader.GetChangesSince(0))
        {
            count += (change.Flags & DocumentFlags.Compressed) != 0 ? 1 : 0;
        }

        return count;
    }

    private static void Check(DocumentStore store, Dictionary<string, string> expected)
    {
        using var reader = store.BeginRead();
        foreach (var (id, body) in expected)
        {
            Assert.True(reader.TryGet(id, out var view), id);
            Assert.True(body == Encoding.UTF8.GetString(view.Body), $"{id}: the body read back differs from the one put ({body.Length} chars)");
        }

        var seen = 0;
        foreach (var change in reader.GetChangesSince(0))
        {
            Assert.True(expected[change.Id] == Encoding.UTF8.GetString(change.Body), $"{change.Id} in the changes feed");
            seen++;
        }

        Assert.Equal(expected.Count, seen);
    }

    /// <summary>A JSON object of about <paramref name="size"/> bytes: Unicode text, repetitive text or base64 noise.</summary>
    private static string RandomBody(Random rnd, int size)
    {
        if (size < 2)
        {
            return "{}";
        }

        var builder = new StringBuilder("{\"v\":\"");
        var kind = rnd.Next(3);
        while (builder.Length < size)
        {
            switch (kind)
            {
                case 0:
                    builder.Append(Words[rnd.Next(Words.Length)]).Append(' ');
                    break;
                case 1:
                    builder.Append("item ").Append(rnd.Next(100)).Append(", ");
                    break;
                default:
                    builder.Append(Convert.ToBase64String(RandomBytes(rnd, 48)));
                    break;
            }
        }

        return builder.Append("\"}").ToString();
    }

    private static string LargestIncompressible(Random rnd, int maxBytes)
    {
        var payload = (maxBytes - 16) / 4 * 3;
        return "{\"b\":\"" + Convert.ToBase64String(RandomBytes(rnd, payload)) + "\"}";
    }

    private static byte[] RandomBytes(Random rnd, int length)
    {
        var bytes = new byte[length];
        rnd.NextBytes(bytes);
        return bytes;
    }

    private static readonly string[] Words = ["straße", "ΟΔΟΣ", "москва", "🍕", "東京", "ümlaut", "naïve", "café", "\\\"quoted\\\"", "\\n", "plain"];
}
