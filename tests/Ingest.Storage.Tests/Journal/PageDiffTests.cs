using Ingest.Storage.Journal;
using Ingest.Storage.Paging;

namespace Ingest.Storage.Tests.Journal;

public sealed unsafe class PageDiffTests
{
    private const int Size = PageHeader.PageSize;

    [Fact]
    public void Random_changes_round_trip_onto_the_base() => TestSeed.Run(seed =>
    {
        var rnd = new Random(seed);
        var before = new byte[Size];
        var diff = new byte[Size];
        for (var round = 0; round < 500; round++)
        {
            rnd.NextBytes(before);
            var after = (byte[])before.Clone();
            var changes = rnd.Next(0, 40);
            for (var c = 0; c < changes; c++)
            {
                var at = rnd.Next(Size);
                var length = Math.Min(rnd.Next(1, 300), Size - at);
                rnd.NextBytes(after.AsSpan(at, length));
            }

            fixed (byte* a = after, b = before, d = diff)
            {
                var length = PageDiff.Encode(a, b, d, Size);
                if (length < 0)
                {
                    continue; // bigger than the page: the journal writes the image
                }

                var replayed = (byte[])before.Clone();
                fixed (byte* r = replayed)
                {
                    Assert.Equal(length, PageDiff.Apply(d, length, r));
                }

                Assert.Equal(after, replayed);
            }
        }
    });

    [Fact]
    public void An_unchanged_page_is_just_the_end_marker_and_a_changed_word_costs_its_eight_bytes()
    {
        var before = new byte[Size];
        new Random(1).NextBytes(before);
        var after = (byte[])before.Clone();
        var diff = new byte[Size];
        fixed (byte* a = after, b = before, d = diff)
        {
            Assert.Equal(PageDiff.RunHeaderSize, PageDiff.Encode(a, b, d, Size));
            after[1001] ^= 1;
            Assert.Equal((2 * PageDiff.RunHeaderSize) + 8, PageDiff.Encode(a, b, d, Size));
        }
    }

    [Fact]
    public void A_diff_that_would_not_be_shorter_than_the_image_is_refused()
    {
        var before = new byte[Size];
        var after = new byte[Size];
        new Random(2).NextBytes(after);
        var diff = new byte[Size];
        fixed (byte* a = after, b = before, d = diff)
        {
            Assert.Equal(-1, PageDiff.Encode(a, b, d, Size));
            Assert.Equal(-1, PageDiff.Encode(a, b, d, 100));
        }
    }

    [Fact]
    public void Malformed_diffs_are_refused_and_never_written_past_the_page_or_read_past_the_record()
    {
        var page = new byte[Size];
        fixed (byte* p = page)
        {
            // A run past the end of the page.
            var pastPage = new byte[] { 0xF8, 0x1F, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 0, 0, 0, 0 };
            fixed (byte* d = pastPage)
            {
                Assert.Equal(-1, PageDiff.Apply(d, pastPage.Length, p));
            }

            // A run longer than what the record holds, and no end marker.
            var shortRecord = new byte[] { 0, 0, 8, 0, 1, 2, 3 };
            fixed (byte* d = shortRecord)
            {
                Assert.Equal(-1, PageDiff.Apply(d, shortRecord.Length, p));
            }

            var noEnd = new byte[] { 8, 0, 8, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
            fixed (byte* d = noEnd)
            {
                Assert.Equal(-1, PageDiff.Apply(d, noEnd.Length, p));
            }
        }
    }
}
