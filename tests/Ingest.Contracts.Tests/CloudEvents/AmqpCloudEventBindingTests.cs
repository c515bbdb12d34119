using System.Text;
using CloudNative.CloudEvents;
using Ingest.Contracts.CloudEvents;

namespace Ingest.Contracts.Tests.CloudEvents;

public sealed class AmqpCloudEventBindingTests
{
    // The binary content mode example of the CloudEvents AMQP protocol binding 1.0 (section 3.1.4).
    private static readonly Dictionary<string, object?> s_specExampleProperties = new()
    {
        ["cloudEvents:specversion"] = "1.0",
        ["cloudEvents:type"] = "com.example.someevent",
        ["cloudEvents:time"] = "2018-04-05T03:56:24Z",
        ["cloudEvents:id"] = "1234-1234-1234",
        ["cloudEvents:source"] = "/mycontext/subcontext",
    };

    private const string SpecExampleContentType = "application/json; charset=utf-8";

    [Fact]
    public void Decode_reads_the_specification_binary_mode_example()
    {
        var body = Encoding.UTF8.GetBytes("{\"a\":1}");

        var cloudEvent = AmqpCloudEventBinding.Decode(SpecExampleContentType, s_specExampleProperties, body);

        Assert.Equal("com.example.someevent", cloudEvent.Type);
        Assert.Equal(new Uri("/mycontext/subcontext", UriKind.Relative), cloudEvent.Source);
        Assert.Equal("1234-1234-1234", cloudEvent.Id);
        Assert.Equal(new DateTimeOffset(2018, 4, 5, 3, 56, 24, TimeSpan.Zero), cloudEvent.Time);
        Assert.Equal(SpecExampleContentType, cloudEvent.DataContentType);
        Assert.Equal(body, cloudEvent.Data);
    }

    [Fact]
    public void Encode_writes_the_specification_binary_mode_example()
    {
        var cloudEvent = new CloudEvent(CloudEventsSpecVersion.V1_0)
        {
            Type = "com.example.someevent",
            Source = new Uri("/mycontext/subcontext", UriKind.Relative),
            Id = "1234-1234-1234",
            Time = new DateTimeOffset(2018, 4, 5, 3, 56, 24, TimeSpan.Zero),
            DataContentType = SpecExampleContentType,
            Data = Encoding.UTF8.GetBytes("{}"),
        };

        var message = AmqpCloudEventBinding.Encode(cloudEvent);

        Assert.Equal(SpecExampleContentType, message.ContentType);
        Assert.Equal(
            s_specExampleProperties.OrderBy(static p => p.Key, StringComparer.Ordinal),
            message.ApplicationProperties.OrderBy(static p => p.Key, StringComparer.Ordinal));
        Assert.Equal("{}"u8.ToArray(), message.Body);
    }

    [Fact]
    public void Decode_accepts_utf8_bytes_and_the_underscore_prefix()
    {
        // RabbitMQ hands string headers back as bytes; later binding revisions write cloudEvents_.
        var properties = s_specExampleProperties.ToDictionary(
            static p => p.Key.Replace("cloudEvents:", "cloudEvents_", StringComparison.Ordinal),
            static p => (object?)Encoding.UTF8.GetBytes((string)p.Value!));

        var cloudEvent = AmqpCloudEventBinding.Decode(null, properties, ReadOnlyMemory<byte>.Empty);

        Assert.Equal("1234-1234-1234", cloudEvent.Id);
        Assert.Null(cloudEvent.Data);
    }

    [Fact]
    public void A_put_document_carries_its_body_and_json_content_type()
    {
        var body = Encoding.UTF8.GetBytes("{\"Total\":12.5}");
        var cloudEvent = DocumentChangeEvent.Create("orders/7", 9, "Orders", new DateTime(2026, 1, 2, 3, 4, 5, DateTimeKind.Utc), deleted: false, "/ingest/host-a", body);

        var message = AmqpCloudEventBinding.Encode(cloudEvent);

        Assert.Equal("application/json", message.ContentType);
        Assert.Equal(body, message.Body);
        Assert.Equal("ingest.document.put", message.ApplicationProperties["cloudEvents:type"]);
        Assert.Equal("orders/7@9", message.ApplicationProperties["cloudEvents:id"]);
        Assert.Equal("2026-01-02T03:04:05Z", message.ApplicationProperties["cloudEvents:time"]);
        Assert.False(message.ApplicationProperties.ContainsKey("cloudEvents:datacontenttype"));
    }

    [Fact]
    public void Collection_names_are_escaped_in_the_source()
    {
        Assert.Equal("/ingest/a/Sales%20Orders", DocumentChangeEvent.SourceOf("/ingest/a/", "Sales Orders").OriginalString);
    }
}
