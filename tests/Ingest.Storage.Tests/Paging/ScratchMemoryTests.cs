using Ingest.Storage.Paging;

namespace Ingest.Storage.Tests.Paging;

/// <summary>Single pages come from shared chunks: distinct while live, recycled when freed, all given back on dispose.</summary>
public sealed unsafe class ScratchMemoryTests
{
    private const int PageSize = PageHeader.PageSize;

    [Fact]
    public void Pages_from_several_chunks_never_overlap_and_freed_ones_are_reused_without_new_chunks()
    {
        using var scratch = new ScratchMemory();
        const int count = 600; // more than two 2 MiB chunks of 256 pages
        var pages = new nint[count];
        for (var i = 0; i < count; i++)
        {
            pages[i] = (nint)scratch.AllocatePages(1);
            new Span<byte>((void*)pages[i], PageSize).Fill((byte)(i % 251));
        }

        for (var i = 0; i < count; i++)
        {
            Assert.True(new Span<byte>((void*)pages[i], PageSize).IndexOfAnyExcept((byte)(i % 251)) < 0, $"page {i} was overwritten by another");
        }

        Assert.Equal(count, scratch.Outstanding);
        var chunks = scratch.LiveBlocks;
        Assert.Equal(3, chunks);

        foreach (var p in pages)
        {
            scratch.FreePages((byte*)p, 1);
        }

        var again = new HashSet<nint>();
        for (var i = 0; i < count; i++)
        {
            again.Add((nint)scratch.AllocatePages(1));
        }

        Assert.Equal(chunks, scratch.LiveBlocks);
        Assert.True(again.SetEquals(pages), "the freed pages are the ones handed out again");
        foreach (var p in again)
        {
            scratch.FreePages((byte*)p, 1);
        }

        Assert.Equal(0, scratch.Outstanding);
    }

    [Fact]
    public void The_next_chunk_is_faulted_in_ahead_and_carved_after_the_current_one()
    {
        if (!OperatingSystem.IsLinux())
        {
            return; // the prefault is a Linux madvise
        }

        using var scratch = new ScratchMemory();
        var pages = new List<nint> { (nint)scratch.AllocatePages(1) }; // the first chunk, allocated here; the next is prepared meanwhile
        Assert.True(SpinWait.SpinUntil(() => scratch.ReadyChunk != 0, TimeSpan.FromSeconds(30)), "no chunk was prepared ahead");
        var ready = scratch.ReadyChunk;
        for (var i = 1; i < 257; i++)
        {
            pages.Add((nint)scratch.AllocatePages(1));
        }

        Assert.Equal(ready, pages[256]); // the 257th page starts the prepared chunk
        Assert.Equal(2, scratch.LiveBlocks); // a chunk counts once it is carved
        foreach (var p in pages)
        {
            new Span<byte>((void*)p, PageSize).Fill(7);
            scratch.FreePages((byte*)p, 1);
        }
    }

    [Fact]
    public void Without_prefault_no_chunk_is_prepared_and_dispose_frees_a_prepared_one()
    {
        using (var quiet = new ScratchMemory(prefault: false))
        {
            quiet.FreePages(quiet.AllocatePages(1), 1);
            Assert.Equal(0, quiet.ReadyChunk);
        }

        var scratch = new ScratchMemory();
        scratch.FreePages(scratch.AllocatePages(1), 1);
        scratch.Dispose(); // with a chunk ready or still being prepared: either is freed, nothing counted stays
        Assert.Equal(0, scratch.LiveBlocks);
        Assert.Equal(0, scratch.ReadyChunk);
    }

    [Fact]
    public void Runs_of_several_pages_are_separate_blocks_and_dispose_gives_everything_back()
    {
        var scratch = new ScratchMemory();
        var run = scratch.AllocatePages(3);
        var page = scratch.AllocatePages(1);
        new Span<byte>(run, 3 * PageSize).Fill(1);
        new Span<byte>(page, PageSize).Fill(2);
        Assert.Equal(2, scratch.LiveBlocks);

        scratch.FreePages(run, 3);
        scratch.FreePages(page, 1);
        Assert.Equal(1, scratch.LiveBlocks); // the chunk stays for reuse
        scratch.Dispose();
        Assert.Equal(0, scratch.LiveBlocks);
        Assert.Equal(0, scratch.Outstanding);
    }

    [Fact]
    public void Pages_pooled_beyond_the_warm_limit_stay_usable_and_resident_pages_are_handed_out_first()
    {
        using var scratch = new ScratchMemory(warmPages: 4);
        var pages = new nint[10];
        for (var i = 0; i < pages.Length; i++)
        {
            pages[i] = (nint)scratch.AllocatePages(1);
            new Span<byte>((void*)pages[i], PageSize).Fill(0xAB);
        }

        foreach (var p in pages)
        {
            scratch.FreePages((byte*)p, 1);
        }

        Assert.Equal(10, scratch.FreshPages);
        for (var i = 0; i < pages.Length; i++)
        {
            Assert.Equal(Math.Max(0, i - 4), scratch.ReleasedPagesReused); // the cold ones, counted for benchmarks
            var p = scratch.AllocatePages(1);
            var bytes = new Span<byte>(p, PageSize);
            if (i < 4)
            {
                // Still resident: handed out before any released page, which would fault in again.
                Assert.True(bytes.IndexOfAnyExcept((byte)0xAB) < 0, $"page {i} should be a resident page with its old bytes");
            }
            else if (OperatingSystem.IsLinux())
            {
                // Released to the kernel: a private anonymous page reads back as zeros.
                Assert.True(bytes.IndexOfAnyExcept((byte)0) < 0, $"page {i} kept its old bytes after its memory was released");
            }

            bytes.Fill(0xCD);
            Assert.True(bytes.IndexOfAnyExcept((byte)0xCD) < 0);
        }

        Assert.Equal(10, scratch.FreshPages);
        Assert.Equal(6, scratch.ReleasedPagesReused);
    }

    [Fact]
    public void Pages_freed_past_the_warm_limit_in_a_batch_stay_resident_until_the_batch_ends_then_read_as_zeros()
    {
        using var scratch = new ScratchMemory(warmPages: 2);
        var pages = new nint[8];
        for (var i = 0; i < pages.Length; i++)
        {
            pages[i] = (nint)scratch.AllocatePages(1);
            new Span<byte>((void*)pages[i], PageSize).Fill(0xAB);
        }

        scratch.BeginFreeBatch();
        foreach (var p in pages)
        {
            scratch.FreePages((byte*)p, 1);
        }

        // Held back, still resident: after the two warm pages they come out with their old bytes, not as released ones.
        var again = new nint[3];
        for (var i = 0; i < again.Length; i++)
        {
            again[i] = (nint)scratch.AllocatePages(1);
            Assert.True(new Span<byte>((void*)again[i], PageSize).IndexOfAnyExcept((byte)0xAB) < 0, $"page {i} should still be resident");
        }

        Assert.Equal(0, scratch.ReleasedPagesReused);
        scratch.EndFreeBatch();

        // The batch's end released the five it still held; they are handed out after every resident page, as zeros.
        for (var i = 0; i < 5; i++)
        {
            var p = scratch.AllocatePages(1);
            if (OperatingSystem.IsLinux())
            {
                Assert.True(new Span<byte>(p, PageSize).IndexOfAnyExcept((byte)0) < 0, $"released page {i} kept its old bytes");
            }

            Assert.Equal(i + 1, scratch.ReleasedPagesReused);
        }

        Assert.Equal(8, scratch.FreshPages);
    }
}
