using Ingest.Indexing.Storage;
using Ingest.Testing;

namespace Ingest.Indexing.Tests.Storage;

public sealed class InlinePostingsTests
{
    [Fact]
    public void Decoding_in_chunks_gives_the_ids_decoding_at_once_gives() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        var ids = new long[random.Next(1, 400)];
        var id = 0L;
        for (var i = 0; i < ids.Length; i++)
        {
            id += random.Next(1, random.Next(2) == 0 ? 3 : 100_000);
            ids[i] = id;
        }

        var value = new byte[1 + (ids.Length * 10)];
        value = value[..InlinePostings.Encode(ids, value)];
        var whole = new List<long>();
        InlinePostings.Decode(value, whole);
        Assert.Equal(ids, whole);

        var chunked = new List<long>();
        var chunk = new long[random.Next(1, 130)];
        var position = 1;
        long previous = 0;
        while (position < value.Length)
        {
            var n = InlinePostings.Decode(value, ref position, ref previous, chunk);
            Assert.InRange(n, 1, chunk.Length);
            chunked.AddRange(chunk.AsSpan(0, n));
        }

        Assert.Equal(ids, chunked);
    });
}
