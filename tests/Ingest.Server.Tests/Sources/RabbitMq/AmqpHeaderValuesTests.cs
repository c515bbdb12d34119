using System.Text;
using Ingest.Server.Sources.RabbitMq;
using RabbitMQ.Client;

namespace Ingest.Server.Tests.Sources.RabbitMq;

public sealed class AmqpHeaderValuesTests
{
    [Fact]
    public void Long_strings_arriving_as_bytes_are_kept_byte_for_byte()
    {
        byte[] raw = [0xFF, 0x00, 0x41];
        var headers = AmqpHeaderValues.ToEnvelopeHeaders(new Dictionary<string, object?> { ["bin"] = raw });

        var header = Assert.Single(headers);
        Assert.Equal("bin", header.Key);
        Assert.Equal(raw, header.Value);
    }

    [Fact]
    public void Numbers_booleans_timestamps_and_strings_become_invariant_utf8_text()
    {
        var headers = AmqpHeaderValues.ToEnvelopeHeaders(new Dictionary<string, object?>
        {
            ["int"] = 42,
            ["long"] = -7L,
            ["double"] = 1.5d,
            ["decimal"] = 2.25m,
            ["flag"] = true,
            ["time"] = new AmqpTimestamp(1_700_000_000),
            ["text"] = "Zürich",
            ["list"] = new List<object?> { 1, "a"u8.ToArray(), false },
            ["table"] = new Dictionary<string, object?> { ["k"] = 3 },
        });

        string Text(string name) => Encoding.UTF8.GetString(headers.Single(h => h.Key == name).Value);
        Assert.Equal("42", Text("int"));
        Assert.Equal("-7", Text("long"));
        Assert.Equal("1.5", Text("double"));
        Assert.Equal("2.25", Text("decimal"));
        Assert.Equal("true", Text("flag"));
        Assert.Equal("1700000000", Text("time"));
        Assert.Equal("Zürich", Text("text"));
        Assert.Equal("[1,a,false]", Text("list"));
        Assert.Equal("{k=3}", Text("table"));
    }

    [Fact]
    public void Null_values_are_left_out_and_order_is_kept()
    {
        var headers = AmqpHeaderValues.ToEnvelopeHeaders(new Dictionary<string, object?>
        {
            ["first"] = "1"u8.ToArray(),
            ["gone"] = null,
            ["second"] = "2"u8.ToArray(),
        });

        Assert.Equal(["first", "second"], headers.Select(h => h.Key));
    }

    [Fact]
    public void No_headers_give_an_empty_list()
    {
        Assert.Empty(AmqpHeaderValues.ToEnvelopeHeaders(null));
        Assert.Empty(AmqpHeaderValues.ToEnvelopeHeaders(new Dictionary<string, object?>()));
    }
}
