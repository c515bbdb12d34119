using Ingest.Storage.Paging;

namespace Ingest.Storage.Tests.Paging;

/// <summary>The shared, versioned page table against a model: per page, every committed version and what the data file holds.</summary>
public sealed class PageTableTests
{
    [Fact]
    public void Commits_and_flushes_match_a_model_for_every_snapshot_still_readable() => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var table = new PageTable();
        var versions = new Dictionary<long, List<(long Tx, nint Pointer)>>();
        var flushedTx = new Dictionary<long, long>(); // page -> tx of the version the data file holds
        long oldestReader = 0;
        var replaced = new List<PageVersion>();
        var pageRange = rnd.Next(2) == 0 ? 200 : 5_000;
        for (long tx = 1; tx <= 150; tx++)
        {
            var pages = Enumerable.Range(0, rnd.Next(1, 100)).Select(_ => (long)rnd.Next(1, pageRange)).Distinct().ToArray();
            var added = pages.Select(p => new PageVersion { Page = p, TxId = tx, Pointer = (nint)((p * 1_000) + tx), Pages = 1 }).OrderBy(v => v.Page).ToArray();
            replaced.Clear();
            table.Publish(added, replaced);
            if (table.DetachReplaced() is { } grown)
            {
                table.RecycleSlots(grown); // no reader probes it here: the next rebuild of its size reuses it
            }
            foreach (var p in pages)
            {
                var list = versions.TryGetValue(p, out var l) ? l : versions[p] = [];
                var previous = list.Count > 0 ? list[^1] : default;
                var stillLinked = previous.Tx > flushedTx.GetValueOrDefault(p);
                Assert.Equal(stillLinked, replaced.Any(r => r.Page == p && r.TxId == previous.Tx));

                list.Add((tx, (nint)((p * 1_000) + tx)));
            }

            if (rnd.Next(8) == 0)
            {
                // A flush up to the oldest reader, seen from a snapshot at most as new as the last commit.
                oldestReader = rnd.NextInt64(oldestReader, tx + 1);
                var visible = rnd.NextInt64(oldestReader, tx + 1);
                var flushed = new List<PageVersion>();
                table.CollectFlushable(visible, oldestReader, flushed, out _);
                foreach (var (page, list) in versions)
                {
                    var seen = list.LastOrDefault(v => v.Tx <= visible);
                    var expectFlush = seen.Tx != 0 && seen.Tx <= oldestReader && seen.Tx > flushedTx.GetValueOrDefault(page);
                    Assert.Equal(expectFlush, flushed.Any(f => f.Page == page && f.TxId == seen.Tx && f.Pointer == seen.Pointer));
                }

                var unlinked = new List<PageVersionNode>();
                table.RemoveFlushed(flushed, [], unlinked);
                Assert.Equal(unlinked.Count, unlinked.Distinct().Count());
                table.Recycle(unlinked); // no reader walks them here: the next commits reuse them at once
                if (table.DetachReplaced() is { } rebuilt)
                {
                    table.RecycleSlots(rebuilt);
                }
                foreach (var f in flushed)
                {
                    flushedTx[f.Page] = f.TxId;
                }
            }

            // Every snapshot from the oldest reader on sees its newest version, or the data file's.
            for (var s = oldestReader; s <= tx; s += Math.Max(1, (tx - oldestReader) / 5))
            {
                foreach (var (page, list) in versions)
                {
                    var newest = list.LastOrDefault(v => v.Tx <= s);
                    var expected = newest.Tx > flushedTx.GetValueOrDefault(page) ? newest.Pointer : 0;
                    Assert.Equal(expected, table.Find(page, s));
                }
            }

            Assert.Equal(versions.Count(kv => kv.Value[^1].Tx > flushedTx.GetValueOrDefault(kv.Key)), table.Count);
        }
    });
}
