namespace Ingest.Storage.PostingLists;

/// <summary>Receives the leaves a merge produces, in id order; it supplies the buffers they are written into.</summary>
internal interface IPostingListLeafSink
{
    /// <summary>
    /// A new buffer for the next leaf; its length is the leaf's capacity. It must not overlap the
    /// leaf being merged, and stays in use until <see cref="LeafCompleted"/> is called for it: the
    /// merge holds back the last two completed leaves to even out a split, so up to three
    /// buffers are in use at once.
    /// </summary>
    Span<byte> NextLeafBuffer();

    /// <summary>A leaf is complete (in the order the buffers were handed out); <paramref name="leaf"/> spans its used bytes at the start of its buffer.</summary>
    void LeafCompleted(PostingListLeaf leaf);
}
