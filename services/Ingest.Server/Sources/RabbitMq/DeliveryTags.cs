namespace Ingest.Server.Sources.RabbitMq;

/// <summary>Which delivery tag acknowledges a durable batch.</summary>
internal static class DeliveryTags
{
    /// <summary>
    /// The highest delivery tag among items of <paramref name="generation"/>, 0 when there is none.
    /// Items are added in delivery order and batches become durable in order, so acknowledging
    /// this tag with multiple=true covers exactly the durable messages of the current channel.
    /// Items from an earlier generation carry tags of a channel that is gone; the broker
    /// redelivers those messages, so they must not be acknowledged.
    /// </summary>
    public static ulong HighestCurrent(ReadOnlySpan<IngestItem> items, int generation)
    {
        ulong highest = 0;
        for (var i = 0; i < items.Length; i++)
        {
            var position = items[i].Position;
            if (position.Epoch == generation && position.Offset > 0 && (ulong)position.Offset > highest)
            {
                highest = (ulong)position.Offset;
            }
        }

        return highest;
    }
}
