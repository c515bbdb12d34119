using Ingest.Server.Sources;
using Ingest.Server.Sources.RabbitMq;

namespace Ingest.Server.Tests.Sources.RabbitMq;

public sealed class DeliveryTagsTests
{
    private static IngestItem Item(long tag, int generation) =>
        new(IngestItemKind.Delete, "id", "c", default, null, new ItemPosition("s/q", 0, tag, generation));

    [Fact]
    public void The_highest_tag_of_the_current_generation_acknowledges_the_batch()
    {
        IngestItem[] items = [Item(5, 2), Item(9, 2), Item(7, 2)];

        Assert.Equal(9ul, DeliveryTags.HighestCurrent(items, generation: 2));
    }

    [Fact]
    public void Tags_from_an_earlier_channel_generation_are_never_acknowledged()
    {
        // Tag 900 belongs to the channel before a reconnect; the new channel's tags start again low.
        IngestItem[] items = [Item(900, 1), Item(3, 2), Item(4, 2)];

        Assert.Equal(4ul, DeliveryTags.HighestCurrent(items, generation: 2));
    }

    [Fact]
    public void A_batch_with_only_stale_items_acknowledges_nothing()
    {
        IngestItem[] items = [Item(10, 1), Item(11, 1)];

        Assert.Equal(0ul, DeliveryTags.HighestCurrent(items, generation: 2));
        Assert.Equal(0ul, DeliveryTags.HighestCurrent([], generation: 2));
    }
}
