using System.Text;
using Ingest.Contracts.CloudEvents;
using Ingest.Documents;
using Ingest.Server.Brokers;
using Ingest.Server.Etl;

namespace Ingest.Server.Tests.Etl;

/// <summary>The direct header writer gives exactly the headers of the CloudEvents Kafka binding (itself tested against the specification's examples).</summary>
public sealed class EtlKafkaHeadersTests
{
    private const string Source = "/ingest/test";

    public static TheoryData<string> Cases =>
        ["put", "delete", "fan-out", "re-keyed", "escaped collection", "whole second", "milliseconds", "positioned put", "positioned fan-out", "positioned delete", "expired"];

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
            "positioned put" => new EtlMessage("orders/1", 14, "Orders", time, false, body, -1, "orders/1", null, [], new("orders-ü", 2, long.MaxValue)),
            "positioned fan-out" => new EtlMessage("orders/1", 15, "Orders", time, false, body, 3, "orders/1", null, [], new("ingest-cluster", int.MaxValue, 0)),
            "positioned delete" => new EtlMessage("orders/1", 16, "Orders", time, true, null, -1, "orders/1", null, [], new("orders", 0, 17)),
            "expired" => new EtlMessage("orders/1", 17, "Orders", time, true, null, -1, "orders/1", null, [], new("orders", 1, 9), Expired: true),
            "whole second" => new EtlMessage("orders/1", 12, "Orders", new DateTime(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc), false, body, -1, "orders/1", null, []),
            _ => new EtlMessage("orders/1", 13, "Orders", new DateTime(2026, 1, 2, 3, 4, 5, 678, DateTimeKind.Utc), false, body, -1, "orders/1", null, []),
        };
        using var writer = new EtlKafkaHeaders(Source);
        using var record = new KafkaRecordBuilder();

        var headers = Write(writer, record, message);
        var expected = KafkaCloudEventBinding.Encode(message.ToCloudEvent(Source));

        var expectedHeaders = expected.Headers.Select(static h => (h.Key, Convert.ToHexString(h.Value)))
            .Concat(message.Headers.Select(static h => (h.Key, Convert.ToHexString(Encoding.UTF8.GetBytes(h.Value)))))
            .Order();
        Assert.Equal(expectedHeaders, headers.Select(static h => (h.Name, Convert.ToHexString(h.Value))).Order());
        Assert.Equal(Encoding.UTF8.GetBytes(message.Key), record.Read(LibRdKafka.VType.Key));
        Assert.Equal(message.EventId, Encoding.UTF8.GetString(headers.Single(static h => h.Name == "ce_id").Value));
    }

    [Fact]
    public void The_traceparent_follows_the_cloud_event_headers_and_precedes_the_transforms()
    {
        using var writer = new EtlKafkaHeaders(Source);
        using var record = new KafkaRecordBuilder();
        var traceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"u8.ToArray();
        var message = new EtlMessage("orders/1", 7, "Orders", DateTime.UnixEpoch, false, Array.Empty<byte>(), -1, "orders/1", null, [new("x-kind", "line")]);

        record.Start(0, 0, EtlKafkaHeaders.ScratchBytes(message, traceParent.Length));
        writer.Write(record, message, traceParent);

        Assert.Equal(
            ["ce_specversion", "ce_id", "ce_source", "ce_type", "ce_subject", "ce_time", "content-type", "traceparent", "x-kind"],
            record.ReadHeaders().Select(static h => h.Name));
        Assert.Equal(traceParent, record.ReadHeaders()[7].Value);
    }

    [Fact]
    public void A_long_id_key_and_headers_grow_the_scratch_space_and_keep_every_byte()
    {
        using var writer = new EtlKafkaHeaders(Source);
        using var record = new KafkaRecordBuilder();
        var id = "orders/" + new string('ü', 5_000);
        var key = "customers/" + new string('é', 3_000);
        var message = new EtlMessage(id, 3, "Orders", DateTime.UnixEpoch, false, Array.Empty<byte>(), 4, key, null, [new("x-" + new string('a', 2_000), new string('€', 2_000))]);

        var headers = Write(writer, record, message);

        Assert.Equal(Encoding.UTF8.GetBytes(key), record.Read(LibRdKafka.VType.Key));
        Assert.Equal($"{id}@3#4", Encoding.UTF8.GetString(headers.Single(static h => h.Name == "ce_id").Value));
        Assert.Equal(id, Encoding.UTF8.GetString(headers.Single(static h => h.Name == "ce_subject").Value));
        Assert.Equal(new string('€', 2_000), Encoding.UTF8.GetString(headers[^1].Value));
    }

    [Fact]
    public void Consecutive_records_with_other_times_and_collections_get_their_own_values()
    {
        using var writer = new EtlKafkaHeaders(Source);
        using var record = new KafkaRecordBuilder();
        var first = Write(writer, record, new EtlMessage("a", 1, "One", new DateTime(2026, 1, 1, 0, 0, 1, DateTimeKind.Utc), false, Array.Empty<byte>(), -1, "a", null, []));
        var second = Write(writer, record, new EtlMessage("b", 2, "Two", new DateTime(2026, 1, 1, 0, 0, 2, DateTimeKind.Utc), false, Array.Empty<byte>(), -1, "b", null, []));
        var third = Write(writer, record, new EtlMessage("c", 3, "One", new DateTime(2026, 1, 1, 0, 0, 2, DateTimeKind.Utc), false, Array.Empty<byte>(), -1, "c", null, []));

        Assert.Equal("2026-01-01T00:00:01Z", Value(first, "ce_time"));
        Assert.Equal("2026-01-01T00:00:02Z", Value(second, "ce_time"));
        Assert.Equal("2026-01-01T00:00:02Z", Value(third, "ce_time"));
        Assert.Equal("/ingest/test/One", Value(first, "ce_source"));
        Assert.Equal("/ingest/test/Two", Value(second, "ce_source"));
        Assert.Equal("/ingest/test/One", Value(third, "ce_source"));
    }

    /// <summary>Writes the message as the destination does and reads the headers back as they are handed to librdkafka.</summary>
    private static List<(string Name, byte[] Value)> Write(EtlKafkaHeaders writer, KafkaRecordBuilder record, EtlMessage message)
    {
        record.Start(0, 0, EtlKafkaHeaders.ScratchBytes(message, 0));
        writer.Write(record, message);
        return record.ReadHeaders();
    }

    private static string Value(List<(string Name, byte[] Value)> headers, string name) => Encoding.UTF8.GetString(headers.Single(h => h.Name == name).Value);

    [Fact]
    public void Event_ids_name_the_log_position_when_the_change_has_one_and_the_etag_otherwise()
    {
        static EtlMessage Message(bool deleted, int fanOut, LogPosition? position, bool expired = false) =>
            new("orders/1", 14, "Orders", DateTime.UnixEpoch, deleted, Array.Empty<byte>(), fanOut, "orders/1", null, [], position, expired);

        Assert.Equal("orders/1@14", Message(false, -1, null).EventId);
        Assert.Equal("orders/1@14#2", Message(false, 2, null).EventId);
        Assert.Equal("orders/1@orders-2-40", Message(false, -1, new("orders", 2, 40)).EventId);
        Assert.Equal("orders/1@ingest-cluster-0-7#1", Message(false, 1, new("ingest-cluster", 0, 7)).EventId);
        Assert.Equal("orders/1@orders-0-41", Message(true, -1, new("orders", 0, 41)).EventId);
        Assert.Equal("orders/1@expired-orders-2-40", Message(true, -1, new("orders", 2, 40), expired: true).EventId);
        Assert.Equal("orders/1@14", Message(true, -1, null, expired: true).EventId);
    }
}
