using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;

namespace Ingest.Server.Tests.Sources;

/// <summary>The source's side of the contract, recording what it is asked to do.</summary>
internal sealed class RecordingAcknowledger(DocumentStore store) : ISourcePositions, IBatchAcknowledger
{
    public int CurrentEpoch { get; init; }

    public List<long[]> Acknowledged { get; } = [];

    public bool DocumentsPresentWhenAcknowledged { get; private set; } = true;

    public bool IsCurrent(in IngestItem item) => item.Position.Epoch == CurrentEpoch;

    public void AddPositions(WriteBatch batch, ReadOnlySpan<IngestItem> items)
    {
        long next = -1;
        foreach (var item in items)
        {
            next = Math.Max(next, item.Position.Offset + 1);
        }

        batch.SetSourcePosition("test/topic", 0, next);
    }

    public ValueTask AcknowledgeAsync(Batch<IngestItem> batch, CancellationToken cancellationToken)
    {
        var offsets = new long[batch.Count];
        for (var i = 0; i < batch.Count; i++)
        {
            offsets[i] = batch[i].Position.Offset;
            if (batch[i].Kind == IngestItemKind.Put && IsCurrent(batch[i]) && store.Get(batch[i].Id!) is null
                && batch[i].Id!.Length <= DocumentStoreOptions.MaxIdBytes)
            {
                DocumentsPresentWhenAcknowledged = false;
            }
        }

        Acknowledged.Add(offsets);
        return ValueTask.CompletedTask;
    }
}
