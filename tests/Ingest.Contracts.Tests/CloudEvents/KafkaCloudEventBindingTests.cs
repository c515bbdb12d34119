using System.Text;
using CloudNative.CloudEvents;
using CloudNative.CloudEvents.SystemTextJson;
using Ingest.Contracts.CloudEvents;

namespace Ingest.Contracts.Tests.CloudEvents;

public sealed class KafkaCloudEventBindingTests
{
    // The binary content mode example of the CloudEvents Kafka protocol binding 1.0 (section 3.2.3).
    private static readonly KeyValuePair<string, byte[]?>[] s_specExampleHeaders =
    [
        Header("ce_specversion", "1.0"),
        Header("ce_type", "com.example.someevent"),
        Header("ce_source", "/mycontext/subcontext"),
        Header("ce_id", "1234-1234-1234"),
        Header("ce_time", "2018-04-05T03:56:24Z"),
        Header("content-type", "application/avro"),
    ];

    [Fact]
    public void Decode_reads_the_specification_binary_mode_example()
    {
        var data = new byte[] { 1, 2, 3 };

        var cloudEvent = KafkaCloudEventBinding.Decode(s_specExampleHeaders, data);

        Assert.Equal(CloudEventsSpecVersion.V1_0, cloudEvent.SpecVersion);
        Assert.Equal("com.example.someevent", cloudEvent.Type);
        Assert.Equal(new Uri("/mycontext/subcontext", UriKind.Relative), cloudEvent.Source);
        Assert.Equal("1234-1234-1234", cloudEvent.Id);
        Assert.Equal(new DateTimeOffset(2018, 4, 5, 3, 56, 24, TimeSpan.Zero), cloudEvent.Time);
        Assert.Equal("application/avro", cloudEvent.DataContentType);
        Assert.Equal(data, cloudEvent.Data);
    }

    [Fact]
    public void Encode_writes_the_specification_binary_mode_example_headers()
    {
        var cloudEvent = new CloudEvent(CloudEventsSpecVersion.V1_0)
        {
            Type = "com.example.someevent",
            Source = new Uri("/mycontext/subcontext", UriKind.Relative),
            Id = "1234-1234-1234",
            Time = new DateTimeOffset(2018, 4, 5, 3, 56, 24, TimeSpan.Zero),
            DataContentType = "application/avro",
            Data = new byte[] { 7 },
        };

        var message = KafkaCloudEventBinding.Encode(cloudEvent);

        Assert.Equal(
            s_specExampleHeaders.Select(static h => (h.Key, Encoding.UTF8.GetString(h.Value!))).OrderBy(static h => h.Key, StringComparer.Ordinal),
            message.Headers.Select(static h => (h.Key, Encoding.UTF8.GetString(h.Value))).OrderBy(static h => h.Key, StringComparer.Ordinal));
        Assert.Equal(new byte[] { 7 }, message.Value);
    }

    [Fact]
    public void Structured_example_survives_a_round_trip_through_binary_mode()
    {
        // The JSON event format's example (json-format.md), read with the SDK's own formatter.
        const string structured = """
            {
              "specversion" : "1.0",
              "type" : "com.example.someevent",
              "source" : "/mycontext",
              "subject": null,
              "id" : "C234-1234-1234",
              "time" : "2018-04-05T17:31:00Z",
              "comexampleextension1" : "value",
              "comexampleothervalue" : 5,
              "datacontenttype" : "application/json",
              "data" : { "appinfoA" : "abc", "appinfoB" : 123, "appinfoC" : true }
            }
            """;
        var original = new JsonEventFormatter().DecodeStructuredModeMessage(Encoding.UTF8.GetBytes(structured), null, null);
        original.Data = Encoding.UTF8.GetBytes(original.Data!.ToString()!);

        var message = KafkaCloudEventBinding.Encode(original);
        var decoded = KafkaCloudEventBinding.Decode(message.Headers.Select(static h => new KeyValuePair<string, byte[]?>(h.Key, h.Value)), message.Value);

        Assert.Equal(original.Id, decoded.Id);
        Assert.Equal(original.Source, decoded.Source);
        Assert.Equal(original.Time, decoded.Time);
        Assert.Equal("value", decoded["comexampleextension1"]);
        Assert.Equal("5", decoded["comexampleothervalue"]);
        Assert.Equal("application/json", decoded.DataContentType);
        Assert.Equal((byte[])original.Data, decoded.Data);
    }

    [Fact]
    public void A_deleted_document_is_a_tombstone_with_cloud_event_headers()
    {
        var cloudEvent = DocumentChangeEvent.Create("orders/1", 42, "Orders", new DateTime(2026, 11, 23, 12, 0, 0, 500, DateTimeKind.Utc), deleted: true, "/ingest/host-a", ReadOnlyMemory<byte>.Empty);

        var message = KafkaCloudEventBinding.Encode(cloudEvent);

        Assert.Null(message.Value);
        var headers = message.Headers.ToDictionary(static h => h.Key, static h => Encoding.UTF8.GetString(h.Value));
        Assert.Equal("ingest.document.deleted", headers["ce_type"]);
        Assert.Equal("orders/1@42", headers["ce_id"]);
        Assert.Equal("orders/1", headers["ce_subject"]);
        Assert.Equal("/ingest/host-a/Orders", headers["ce_source"]);
        Assert.Equal("2026-11-23T12:00:00.500Z", headers["ce_time"]);
        Assert.False(headers.ContainsKey("content-type"));
    }

    [Fact]
    public void Decode_without_specversion_names_the_missing_header()
    {
        var error = Assert.Throws<ArgumentException>(() => KafkaCloudEventBinding.Decode([Header("ce_id", "1")], null));

        Assert.Contains("ce_specversion", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Decode_without_a_required_attribute_fails()
    {
        var error = Assert.Throws<ArgumentException>(() => KafkaCloudEventBinding.Decode([Header("ce_specversion", "1.0"), Header("ce_id", "1")], null));

        Assert.Contains("source", error.Message, StringComparison.Ordinal);
    }

    private static KeyValuePair<string, byte[]?> Header(string name, string value) => new(name, Encoding.UTF8.GetBytes(value));
}
