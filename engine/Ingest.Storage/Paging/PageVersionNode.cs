namespace Ingest.Storage.Paging;

/// <summary>
/// One committed version of a page in a <see cref="PageTable"/> chain; <see cref="Next"/> is the next older one.
/// Pooled by the table: a node unlinked by a flush is reused only once no transaction can still be reading it
/// (the same epoch rule as the scratch page it pointed at), so a reader never meets a node that changed under it.
/// </summary>
internal sealed class PageVersionNode
{
    public PageVersion Version;

    // Written by the writer or flusher under the publish lock, read by readers without one.
    public PageVersionNode? Next;
}
