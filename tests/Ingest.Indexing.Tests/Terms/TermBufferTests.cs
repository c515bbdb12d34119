using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Terms;

public sealed class TermBufferTests
{
    [Fact]
    public void Terms_grow_past_the_initial_arrays_and_read_back_in_order()
    {
        using var buffer = new TermBuffer(initialBytes: 4, initialTerms: 1);
        var expected = Enumerable.Range(0, 1000).Select(i => new byte[i % 37]).ToArray();
        for (var i = 0; i < expected.Length; i++)
        {
            Array.Fill(expected[i], (byte)i);
            buffer.Add(expected[i]);
        }

        Assert.Equal(expected.Length, buffer.Count);
        Assert.Equal(expected.Sum(t => t.Length), buffer.ByteCount);
        for (var i = 0; i < expected.Length; i++)
        {
            Assert.Equal(expected[i], buffer[i].ToArray());
        }
    }

    [Fact]
    public void Truncate_drops_the_later_terms_and_clear_drops_all()
    {
        using var buffer = new TermBuffer();
        buffer.Add("one"u8);
        buffer.Add("two"u8);
        buffer.Add("three"u8);

        buffer.Truncate(1);
        buffer.Add("four"u8);

        Assert.Equal(2, buffer.Count);
        Assert.Equal("four"u8.ToArray(), buffer[1].ToArray());
        buffer.Clear();
        Assert.Equal((0, 0), (buffer.Count, buffer.ByteCount));
        Assert.Throws<ArgumentOutOfRangeException>(() => buffer[0].ToArray());
    }
}
