namespace Ingest.Storage.Paging;

/// <summary>One committed version of a page in a <see cref="PageTable"/> chain; <see cref="Next"/> is the next older one.</summary>
internal sealed class PageVersionNode(in PageVersion version, PageVersionNode? next)
{
    public readonly PageVersion Version = version;

    // Written by the writer or flusher under the publish lock, read by readers without one.
    public PageVersionNode? Next = next;
}
