using Ingest.Contracts.DeadLetters;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Tests.Sources.Mapping;

/// <summary>A dead letter's envelope seen by the mapper again, as a replay does.</summary>
public sealed class DeadLetterReplayMappingTests
{
    [Fact]
    public void Replaying_with_a_fixed_body_maps_to_a_put_with_the_original_id_and_collection()
    {
        List<KeyValuePair<string, byte[]>> headers = [new("ingest-collection", "Orders"u8.ToArray())];
        var raw = DeadLetterEnvelope.Encode("orders-topic", "o-9"u8, hasKey: true, null, headers, "{oops"u8, isTombstone: false);
        Assert.True(DeadLetterEnvelope.TryDecode(raw, out var envelope, out _));

        var stillBroken = MessageMapper.Map(envelope.ToIncomingMessage(default, replaceBody: false), new MappingRules());
        Assert.True(stillBroken.IsDeadLetter);
        Assert.Equal(DeadLetterReason.NotJson, stillBroken.DeadLetterReason);

        var fixedBody = """{"total":3}"""u8;
        var replayed = MessageMapper.Map(envelope.ToIncomingMessage(fixedBody, replaceBody: true), new MappingRules());
        Assert.False(replayed.IsDeadLetter);
        Assert.Equal("o-9", replayed.Id);
        Assert.Equal("Orders", replayed.Collection);
        Assert.Equal(fixedBody.ToArray(), replayed.Body.ToArray());
    }
}
