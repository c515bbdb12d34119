using Ingest.Server.Sources;

namespace Ingest.Server.Batching;

/// <summary>
/// A source's transform, run by the writer on its loop before a batch is built: each item
/// awaiting its transform is replaced by what the script made of it, in place and in order, so a
/// retried write reuses the results and the positions commit with them.
/// </summary>
/// <param name="transform">Runs the source's script for one <see cref="IngestItemKind.AwaitingTransform"/> item; never throws for a message.</param>
internal sealed class BatchTransform(Func<IngestItem, IngestItem> transform)
{
    public void Run(Batch<IngestItem> batch)
    {
        var items = batch.ItemsToUpdate;
        for (var i = 0; i < items.Length; i++)
        {
            if (items[i].Kind == IngestItemKind.AwaitingTransform)
            {
                items[i] = transform(items[i]);
            }
        }
    }
}
