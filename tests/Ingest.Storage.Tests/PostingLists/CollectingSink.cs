using Ingest.Storage.PostingLists;

namespace Ingest.Storage.Tests.PostingLists;

/// <summary>Hands out new garbage-filled buffers of one capacity and keeps each completed leaf, trimmed to its used bytes, checking they complete in order.</summary>
internal sealed class CollectingSink(int capacity) : IPostingListLeafSink
{
    private readonly Queue<byte[]> _outstanding = new();

    public List<byte[]> Leaves { get; } = [];

    public Span<byte> NextLeafBuffer()
    {
        Assert.True(_outstanding.Count < 3, "More than three leaf buffers in use.");
        var buffer = new byte[capacity];
        Array.Fill(buffer, (byte)0xA5);
        _outstanding.Enqueue(buffer);
        return buffer;
    }

    public void LeafCompleted(PostingListLeaf leaf)
    {
        var buffer = _outstanding.Dequeue();
        Assert.True(leaf.UsedBytes <= capacity);
        Leaves.Add(buffer.AsSpan(0, leaf.UsedBytes).ToArray());
        Assert.True(new PostingListLeaf(buffer).UsedBytes == leaf.UsedBytes, "The completed leaf is not the oldest buffer handed out.");
    }
}
