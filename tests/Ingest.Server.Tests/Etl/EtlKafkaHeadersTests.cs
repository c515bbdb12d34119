using System.Text;
using Ingest.Contracts.CloudEvents;
using Ingest.Server.Etl;

namespace Ingest.Server.Tests.Etl;

/// <summary>The direct header writer gives exactly the headers of the CloudEvents Kafka binding (itself tested against the specification's examples).</summary>
public sealed class EtlKafkaHeadersTests
{
    private const string Source = "/ingest/test";

    public static TheoryData<string> Cases => ["put", "delete", "fan-out", "re-keyed", "escaped collection", "whole second", "milliseconds"];

    [Theory]
    [MemberData(nameof(Cases))]
    public void Headers_key_and_value_match_the_binding_of_the_same_cloud_event(string name)
    {
        var time = new DateTime(2026, 11, 23, 12, 30, 50, DateTimeKind.Utc).AddTicks(1_732_377);
        var body = """{"N":1}"""u8.ToArray();
        var message = name switch
        {
            "put" => new EtlMessage("orders/1", 7, "Orders", time, false, body, -1, "orders/1", null, []),
            "delete" => new EtlMessage("orders/1", 8, "Orders", time, true, null, -1, "orders/1", null, []),
            "fan-out" => new EtlMessage("orders/1", 9, "Orders", time, false, body, 2, "orders/1", null, [new("x-kind", "line")]),
            "re-keyed" => new EtlMessage("orders/é", 10, "Orders", time, false, body, -1, "customers/7", "other-topic", [new("x-region", "eu")]),
            "escaped collection" => new EtlMessage("lines/1", 11, "Order Lines/ü", time, false, body, -1, "lines/1", null, []),
            "whole second" => new EtlMessage("orders/1", 12, "Orders", new DateTime(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc), false, body, -1, "orders/1", null, []),
            _ => new EtlMessage("orders/1", 13, "Orders", new DateTime(2026, 1, 2, 3, 4, 5, 678, DateTimeKind.Utc), false, body, -1, "orders/1", null, []),
        };
        var writer = new EtlKafkaHeaders(Source);

        var record = writer.ToRecord(message);
        var expected = KafkaCloudEventBinding.Encode(message.ToCloudEvent(Source));

        var expectedHeaders = expected.Headers.Select(static h => (h.Key, Encoding.UTF8.GetString(h.Value)))
            .Concat(message.Headers.Select(static h => (h.Key, h.Value)))
            .Order();
        Assert.Equal(expectedHeaders, record.Headers.Select(static h => (h.Key, Encoding.UTF8.GetString(h.GetValueBytes()))).Order());
        Assert.Equal(expected.Value, record.Value);
        Assert.Equal(message.Key, Encoding.UTF8.GetString(record.Key));
        Assert.Equal(message.EventId, Encoding.UTF8.GetString(record.Headers.GetLastBytes("ce_id")));
    }

    [Fact]
    public void Consecutive_records_with_other_times_and_collections_get_their_own_values()
    {
        var writer = new EtlKafkaHeaders(Source);
        var first = writer.ToRecord(new EtlMessage("a", 1, "One", new DateTime(2026, 1, 1, 0, 0, 1, DateTimeKind.Utc), false, [], -1, "a", null, []));
        var second = writer.ToRecord(new EtlMessage("b", 2, "Two", new DateTime(2026, 1, 1, 0, 0, 2, DateTimeKind.Utc), false, [], -1, "b", null, []));

        Assert.Equal("2026-01-01T00:00:01Z", Encoding.UTF8.GetString(first.Headers.GetLastBytes("ce_time")));
        Assert.Equal("2026-01-01T00:00:02Z", Encoding.UTF8.GetString(second.Headers.GetLastBytes("ce_time")));
        Assert.Equal("/ingest/test/One", Encoding.UTF8.GetString(first.Headers.GetLastBytes("ce_source")));
        Assert.Equal("/ingest/test/Two", Encoding.UTF8.GetString(second.Headers.GetLastBytes("ce_source")));
    }
}
