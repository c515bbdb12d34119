using System.Text;

namespace Ingest.Storage.Tests.Compaction;

/// <summary>Fills a store with a tree, a fixed-size tree and a posting list, deletes about half, and reads it all back.</summary>
internal static class StoreContents
{
    public static void FillAndDeleteHalf(string directory, int seed, int count)
    {
        var rnd = new Random(seed);
        using var env = StorageEnvironment.Open(directory, TestDirectory.Options());
        var value = new byte[300];
        var ids = new long[256];
        for (var start = 0; start < count; start += 1000)
        {
            using var tx = env.BeginWrite();
            var tree = tx.CreateTree("docs");
            var fixedTree = tx.CreateFixedSizeTree("etags", 8);
            var list = tx.CreatePostingList("postings");
            for (var i = start; i < Math.Min(count, start + 1000); i++)
            {
                rnd.NextBytes(value);
                tree.Put(Keys.Of(i), value.AsSpan(0, rnd.Next(20, value.Length)));
                fixedTree.Put(i, BitConverter.GetBytes((long)i * 7));
            }

            for (var i = 0; i < ids.Length; i++)
            {
                ids[i] = (start * 4L) + (i * 3);
            }

            list.Update(ids, []);
            if (start % 7000 == 0)
            {
                tx.CreateTree($"small/{start}").Put(Keys.Of("big"), new byte[20_000]); // an overflow value
            }

            tx.Commit();
        }

        using (var tx = env.BeginWrite())
        {
            var tree = tx.CreateTree("docs");
            var fixedTree = tx.CreateFixedSizeTree("etags", 8);
            var removals = new List<long>();
            for (var i = 0; i < count; i++)
            {
                if (rnd.Next(2) == 0)
                {
                    tree.Delete(Keys.Of(i));
                    fixedTree.Delete(i);
                }
            }

            var list = tx.CreatePostingList("postings");
            var iterator = list.Iterate();
            Span<long> buffer = new long[4096];
            for (int n; (n = iterator.Fill(buffer)) > 0;)
            {
                foreach (var id in buffer[..n])
                {
                    if (id % 2 == 0)
                    {
                        removals.Add(id);
                    }
                }
            }

            list.Update([], [.. removals]);
            tx.Commit();
        }
    }

    /// <summary>Every tree's name and entries, as text (keys and values hex), in order.</summary>
    public static string Read(string directory)
    {
        using var env = StorageEnvironment.Open(directory, TestDirectory.Options());
        using var read = env.BeginRead();
        var text = new StringBuilder();
        var docs = read.OpenTree("docs")!.CreateCursor();
        for (var ok = docs.First(); ok; ok = docs.MoveNext())
        {
            text.Append(Convert.ToHexString(docs.Key)).Append('=').Append(Convert.ToHexString(docs.Value)).Append('\n');
        }

        var etags = read.OpenFixedSizeTree("etags")!.CreateCursor();
        for (var ok = etags.First(); ok; ok = etags.MoveNext())
        {
            text.Append(etags.Key).Append('=').Append(Convert.ToHexString(etags.Value)).Append('\n');
        }

        var ids = read.OpenPostingList("postings")!.Iterate();
        Span<long> buffer = new long[4096];
        for (int n; (n = ids.Fill(buffer)) > 0;)
        {
            foreach (var id in buffer[..n])
            {
                text.Append(id).Append(',');
            }
        }

        for (var start = 0; start < 100_000; start += 7000)
        {
            if (read.OpenTree($"small/{start}") is { } small)
            {
                text.Append(start).Append(small.TryGet(Keys.Of("big"), out var big) ? big.Length : -1).Append('\n');
            }
        }

        return text.ToString();
    }
}
