using System.Text;
using Confluent.Kafka;
using Ingest.Contracts.Messages;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Tests.Sources.Kafka;

public sealed class KafkaHeadersViewTests
{
    [Fact]
    public void The_last_of_repeated_headers_wins_and_the_span_is_the_clients_own_array()
    {
        var last = "second"u8.ToArray();
        var headers = new Headers { { "ingest-id", "first"u8.ToArray() }, { "other", "x"u8.ToArray() }, { "ingest-id", last } };
        var view = new KafkaHeadersView { Headers = headers };

        Assert.True(view.TryGetValue("ingest-id", out var value));
        Assert.Equal("second", Encoding.UTF8.GetString(value));
        Assert.True(value.Overlaps(last), "no copy");
    }

    [Fact]
    public void Names_are_case_sensitive_and_absent_headers_are_absent()
    {
        var view = new KafkaHeadersView { Headers = new Headers { { "ingest-id", "a"u8.ToArray() } } };
        Assert.False(view.TryGetValue("Ingest-Id", out _));
        Assert.False(view.TryGetValue("ingest-op", out var missing));
        Assert.True(missing.IsEmpty);

        view.Headers = null;
        Assert.False(view.TryGetValue("ingest-id", out _));
    }

    [Fact]
    public void A_null_header_value_is_present_and_empty_in_mapping_and_in_the_dead_letter_list()
    {
        var headers = new Headers { { "ingest-op", "delete"u8.ToArray() }, { "ingest-op", null } };
        var view = new KafkaHeadersView { Headers = headers };
        Assert.True(view.TryGetValue("ingest-op", out var value));
        Assert.True(value.IsEmpty);

        // An empty ingest-op means put: the null value overrides the earlier delete.
        var message = IncomingMessage.FromKafka("t", "k"u8, hasKey: true, """{"a":1}"""u8, isTombstone: false, view);
        Assert.Equal(Ingest.Contracts.Messages.IngestOperation.Put, MessageMapper.Map(message, new MappingRules()).Operation);

        var list = KafkaHeadersView.ToList(headers)!;
        Assert.Equal(2, list.Count);
        Assert.Equal("ingest-op", list[1].Key);
        Assert.Empty(list[1].Value);
        Assert.Equal("delete", Encoding.UTF8.GetString(list[0].Value));
        Assert.Null(KafkaHeadersView.ToList(null));
        Assert.Null(KafkaHeadersView.ToList([]));
    }
}
