using System.Text;
using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Messages;
using Ingest.Server.Sources.Mapping;
using Ingest.Testing;

namespace Ingest.Server.Tests.Sources.Mapping;

public sealed class MessageMapperTests
{
    private static readonly MappingRules _defaults = new();
    private static readonly MappingRules _byIdProperty = new() { IdProperty = "id" };

    private static byte[] Utf8(string text) => Encoding.UTF8.GetBytes(text);

    private static DictionaryMessageHeaders Headers(params (string Name, string Value)[] headers) =>
        new(headers.ToDictionary(h => h.Name, h => (object?)Utf8(h.Value)));

    private static IncomingMessage Kafka(string body, string? key = null, DictionaryMessageHeaders? headers = null) =>
        IncomingMessage.FromKafka("orders-topic", key is null ? default : Utf8(key), key is not null, Utf8(body), isTombstone: false, headers);

    private static IncomingMessage Amqp(string body, string? messageId = null, DictionaryMessageHeaders? headers = null) =>
        IncomingMessage.FromAmqp("orders-queue", messageId, Utf8(body), headers);

    private static (DeadLetterReason? Reason, string? Message) DeadLetter(in IncomingMessage message, MappingRules rules)
    {
        var result = MessageMapper.Map(message, rules);
        Assert.True(result.IsDeadLetter);
        return (result.DeadLetterReason, result.DeadLetterMessage);
    }

    // Id precedence

    [Fact]
    public void Id_header_wins_over_key_and_body_property()
    {
        var result = MessageMapper.Map(Kafka("""{"id":"from-body"}""", key: "from-key", Headers(("ingest-id", "from-header"))), _byIdProperty);
        Assert.False(result.IsDeadLetter);
        Assert.Equal("from-header", result.Id);
    }

    [Fact]
    public void Id_header_wins_over_amqp_message_id()
    {
        var result = MessageMapper.Map(Amqp("{}", messageId: "from-message-id", Headers(("ingest-id", "from-header"))), _defaults);
        Assert.Equal("from-header", result.Id);
    }

    [Fact]
    public void Kafka_key_wins_over_body_property()
    {
        var result = MessageMapper.Map(Kafka("""{"id":"from-body"}""", key: "from-key"), _byIdProperty);
        Assert.Equal("from-key", result.Id);
    }

    [Fact]
    public void Amqp_message_id_wins_over_body_property()
    {
        var result = MessageMapper.Map(Amqp("""{"id":"from-body"}""", messageId: "from-message-id"), _byIdProperty);
        Assert.Equal("from-message-id", result.Id);
    }

    [Fact]
    public void Body_property_is_used_when_no_header_key_or_message_id()
    {
        var kafka = MessageMapper.Map(Kafka("""{"name":"x","id":"from-body"}"""), _byIdProperty);
        Assert.Equal("from-body", kafka.Id);
        var amqp = MessageMapper.Map(Amqp("""{"id":"from-body"}"""), _byIdProperty);
        Assert.Equal("from-body", amqp.Id);
    }

    [Fact]
    public void Body_property_is_matched_at_top_level_only()
    {
        var (reason, _) = DeadLetter(Kafka("""{"inner":{"id":"nested"}}"""), _byIdProperty);
        Assert.Equal(DeadLetterReason.NoId, reason);
    }

    [Fact]
    public void Body_property_with_escaped_name_and_value_is_unescaped()
    {
        var result = MessageMapper.Map(Kafka("""{"\u0069d":"a\"b"}"""), _byIdProperty);
        Assert.Equal("a\"b", result.Id);
    }

    [Theory]
    [InlineData("""{"id":42}""", "42")]
    [InlineData("""{"id":-1.50}""", "-1.50")]
    [InlineData("""{"id":1e3}""", "1e3")]
    public void Numeric_id_property_keeps_its_json_text(string body, string expected)
    {
        var result = MessageMapper.Map(Kafka(body), _byIdProperty);
        Assert.False(result.IsDeadLetter);
        Assert.Equal(expected, result.Id);
    }

    [Fact]
    public void Empty_kafka_key_is_present_and_invalid_not_absent()
    {
        var message = IncomingMessage.FromKafka("t", ReadOnlySpan<byte>.Empty, hasKey: true, Utf8("""{"id":"from-body"}"""), isTombstone: false, null);
        var (reason, text) = DeadLetter(message, _byIdProperty);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Contains("message key is empty", text, StringComparison.Ordinal);
    }

    // Collection precedence

    [Fact]
    public void Collection_header_wins_over_configured_collection()
    {
        var result = MessageMapper.Map(Kafka("{}", key: "k", Headers(("ingest-collection", "from-header"))), new MappingRules { Collection = "configured" });
        Assert.Equal("from-header", result.Collection);
    }

    [Fact]
    public void Configured_collection_wins_over_destination()
    {
        var result = MessageMapper.Map(Kafka("{}", key: "k"), new MappingRules { Collection = "configured" });
        Assert.Equal("configured", result.Collection);
    }

    [Fact]
    public void Destination_is_the_collection_by_default()
    {
        Assert.Equal("orders-topic", MessageMapper.Map(Kafka("{}", key: "k"), _defaults).Collection);
        Assert.Equal("orders-queue", MessageMapper.Map(Amqp("{}", messageId: "m"), _defaults).Collection);
    }

    [Fact]
    public void Invalid_utf8_collection_header_is_a_dead_letter()
    {
        var headers = new DictionaryMessageHeaders(new Dictionary<string, object?> { ["ingest-collection"] = new byte[] { 0xC3, 0x28 } });
        var (reason, text) = DeadLetter(Kafka("{}", key: "k", headers), _defaults);
        Assert.Equal(DeadLetterReason.InvalidCollection, reason);
        Assert.Contains("ingest-collection header is not valid UTF-8", text, StringComparison.Ordinal);
    }

    // Operations

    [Fact]
    public void Put_returns_the_body_in_place()
    {
        var body = Utf8("""{"a":1}""");
        var result = MessageMapper.Map(IncomingMessage.FromKafka("t", Utf8("k"), true, body, false, null), _defaults);
        Assert.Equal(IngestOperation.Put, result.Operation);
        Assert.True(result.Body.SequenceEqual(body));
        Assert.True(SameMemory(result.Body, body));
    }

    private static bool SameMemory(ReadOnlySpan<byte> a, byte[] b) => a.Overlaps(b, out var offset) && offset == 0;

    [Fact]
    public void Tombstone_deletes_by_key()
    {
        var message = IncomingMessage.FromKafka("t", Utf8("k"), hasKey: true, default, isTombstone: true, null);
        var result = MessageMapper.Map(message, _byIdProperty);
        Assert.False(result.IsDeadLetter);
        Assert.Equal(IngestOperation.Delete, result.Operation);
        Assert.Equal("k", result.Id);
        Assert.True(result.Body.IsEmpty);
    }

    [Fact]
    public void Tombstone_without_key_has_no_id()
    {
        var message = IncomingMessage.FromKafka("t", default, hasKey: false, default, isTombstone: true, null);
        var (reason, text) = DeadLetter(message, _byIdProperty);
        Assert.Equal(DeadLetterReason.NoId, reason);
        Assert.Contains("body of a delete is not read", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Tombstone_with_explicit_put_is_a_dead_letter_not_a_delete()
    {
        var message = IncomingMessage.FromKafka("t", Utf8("k"), true, default, isTombstone: true, Headers(("ingest-op", "put")));
        var (reason, text) = DeadLetter(message, _defaults);
        Assert.Equal(DeadLetterReason.NotJson, reason);
        Assert.Contains("tombstone", text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("delete")]
    [InlineData("DELETE")]
    public void Delete_header_deletes_and_ignores_the_body(string op)
    {
        var result = MessageMapper.Map(Amqp("not json at all", messageId: "m", Headers(("ingest-op", op))), new MappingRules { MaxBodyBytes = 4 });
        Assert.False(result.IsDeadLetter);
        Assert.Equal(IngestOperation.Delete, result.Operation);
        Assert.Equal("m", result.Id);
        Assert.Equal("orders-queue", result.Collection);
        Assert.True(result.Body.IsEmpty);
    }

    [Fact]
    public void Delete_does_not_take_the_id_from_the_body()
    {
        var (reason, _) = DeadLetter(Amqp("""{"id":"x"}""", headers: Headers(("ingest-op", "delete"))), _byIdProperty);
        Assert.Equal(DeadLetterReason.NoId, reason);
    }

    [Fact]
    public void Unknown_operation_is_a_dead_letter_that_names_the_value()
    {
        var (reason, text) = DeadLetter(Kafka("{}", key: "k", Headers(("ingest-op", "upsert"))), _defaults);
        Assert.Equal(DeadLetterReason.UnknownOperation, reason);
        Assert.Contains("unknown operation", text, StringComparison.Ordinal);
        Assert.Contains("'upsert'", text, StringComparison.Ordinal);
    }

    // Body

    [Fact]
    public void Body_over_the_limit_is_too_large()
    {
        var rules = new MappingRules { MaxBodyBytes = 8 };
        Assert.False(MessageMapper.Map(Kafka("""{"a":12}""", key: "k"), rules).IsDeadLetter);
        var (reason, text) = DeadLetter(Kafka("""{"a":123}""", key: "k"), rules);
        Assert.Equal(DeadLetterReason.TooLarge, reason);
        Assert.Contains("too large: the body is 9 bytes; the limit is 8 bytes", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Default_limit_is_16_MiB()
    {
        Assert.Equal(16 * 1024 * 1024, new MappingRules().MaxBodyBytes);
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    [InlineData("{")]
    [InlineData("{\"a\":}")]
    [InlineData("{} {}")]
    [InlineData("{} x")]
    [InlineData("{\"a\":1} // comment")]
    [InlineData("hello")]
    public void Invalid_json_is_not_json(string body)
    {
        var (reason, text) = DeadLetter(Kafka(body, key: "k"), _defaults);
        Assert.Equal(DeadLetterReason.NotJson, reason);
        Assert.StartsWith("not JSON", text, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("[1,2]", "an array")]
    [InlineData("\"text\"", "a string")]
    [InlineData("42", "a number")]
    [InlineData("true", "a boolean")]
    [InlineData("null", "null")]
    public void Top_level_non_object_is_not_json(string body, string kind)
    {
        var (reason, text) = DeadLetter(Kafka(body, key: "k"), _defaults);
        Assert.Equal(DeadLetterReason.NotJson, reason);
        Assert.Contains($"top-level value is {kind}, not an object", text, StringComparison.Ordinal);
    }

    [Theory]
    [MemberData(nameof(InvalidUtf8Bodies.Names), MemberType = typeof(InvalidUtf8Bodies))]
    public void A_body_that_is_not_valid_utf8_is_a_dead_letter_naming_the_byte_offset(string name)
    {
        var body = InvalidUtf8Bodies.Body(name);

        var (reason, text) = DeadLetter(IncomingMessage.FromKafka("t", Utf8("k"), true, body, false, null), _defaults);

        Assert.Equal(DeadLetterReason.NotJson, reason);
        Assert.Equal($"not JSON: the body is not valid UTF-8 at byte {InvalidUtf8Bodies.Offset(name)}", text);
    }

    [Fact]
    public void Invalid_utf8_in_the_id_property_value_is_a_dead_letter_naming_the_byte_offset()
    {
        var body = new byte[] { (byte)'{', (byte)'"', (byte)'i', (byte)'d', (byte)'"', (byte)':', (byte)'"', 0xC0, (byte)'"', (byte)'}' };
        var (reason, text) = DeadLetter(IncomingMessage.FromKafka("t", default, false, body, false, null), _byIdProperty);
        Assert.Equal(DeadLetterReason.NotJson, reason);
        Assert.Equal("not JSON: the body is not valid UTF-8 at byte 7", text);
    }

    [Fact]
    public void Body_is_validated_even_when_the_id_comes_from_elsewhere()
    {
        var (reason, _) = DeadLetter(Kafka("""{"id":"x",}""", key: "k"), _byIdProperty);
        Assert.Equal(DeadLetterReason.NotJson, reason);
    }

    // Missing ids

    [Fact]
    public void Missing_id_without_id_property_says_none_is_configured()
    {
        var (reason, text) = DeadLetter(Kafka("""{"id":"ignored"}"""), _defaults);
        Assert.Equal(DeadLetterReason.NoId, reason);
        Assert.Equal("no document id: no ingest-id header, no message key or message-id, and no id property is configured", text);
    }

    [Fact]
    public void Missing_id_with_id_property_names_the_property()
    {
        var (reason, text) = DeadLetter(Amqp("""{"name":"x"}"""), _byIdProperty);
        Assert.Equal(DeadLetterReason.NoId, reason);
        Assert.Equal("no document id: no ingest-id header, no message key or message-id, and the body has no 'id' property", text);
    }

    [Fact]
    public void Null_id_property_counts_as_missing()
    {
        var (reason, _) = DeadLetter(Kafka("""{"id":null}"""), _byIdProperty);
        Assert.Equal(DeadLetterReason.NoId, reason);
    }

    // Invalid ids

    [Theory]
    [InlineData("""{"id":""}""", "'id' property is empty")]
    [InlineData("""{"id":true}""", "'id' property is a boolean, not a string or number")]
    [InlineData("""{"id":{"a":1}}""", "'id' property is an object, not a string or number")]
    [InlineData("""{"id":[1]}""", "'id' property is an array, not a string or number")]
    [InlineData("""{"id":"\ud800"}""", "'id' property is not valid UTF-16")]
    public void Invalid_id_property_names_the_problem(string body, string expected)
    {
        var (reason, text) = DeadLetter(Kafka(body), _byIdProperty);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.StartsWith("invalid id: ", text, StringComparison.Ordinal);
        Assert.Contains(expected, text, StringComparison.Ordinal);
    }

    [Fact]
    public void Invalid_utf8_key_is_an_invalid_id()
    {
        var message = IncomingMessage.FromKafka("t", new byte[] { 0x61, 0xFF }, true, Utf8("{}"), false, null);
        var (reason, text) = DeadLetter(message, _defaults);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Equal("invalid id: the message key is not valid UTF-8", text);
    }

    [Fact]
    public void Invalid_utf8_id_header_is_an_invalid_id()
    {
        var headers = new DictionaryMessageHeaders(new Dictionary<string, object?> { ["ingest-id"] = new byte[] { 0xED, 0xA0, 0x80 } });
        var (reason, text) = DeadLetter(Kafka("{}", key: "k", headers), _defaults);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Equal("invalid id: the ingest-id header is not valid UTF-8", text);
    }

    [Fact]
    public void Empty_id_header_is_an_invalid_id()
    {
        var (reason, text) = DeadLetter(Kafka("{}", key: "k", Headers(("ingest-id", ""))), _defaults);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Equal("invalid id: the ingest-id header is empty", text);
    }

    [Fact]
    public void Message_id_with_a_lone_surrogate_is_an_invalid_id()
    {
        var (reason, text) = DeadLetter(Amqp("{}", messageId: "a\ud800"), _defaults);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Contains("message-id is not valid Unicode", text, StringComparison.Ordinal);
    }

    [Fact]
    public void Id_of_512_bytes_is_accepted_and_513_rejected()
    {
        Assert.Equal(new string('a', 512), MessageMapper.Map(Kafka("{}", key: new string('a', 512)), _defaults).Id);

        var (reason, text) = DeadLetter(Kafka("{}", key: new string('a', 513)), _defaults);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Equal("invalid id: the message key is 513 UTF-8 bytes; the limit is 512", text);
    }

    [Fact]
    public void Id_length_is_counted_in_utf8_bytes()
    {
        // 'é' is two UTF-8 bytes: 256 of them are 512 bytes, 257 are 514.
        Assert.False(MessageMapper.Map(Amqp("{}", messageId: new string('é', 256)), _defaults).IsDeadLetter);

        var (reason, text) = DeadLetter(Amqp("{}", messageId: new string('é', 257)), _defaults);
        Assert.Equal(DeadLetterReason.InvalidId, reason);
        Assert.Equal("invalid id: the message-id is 514 UTF-8 bytes; the limit is 512", text);

        var (bodyReason, _) = DeadLetter(Kafka($$"""{"id":"{{new string('é', 257)}}"}"""), _byIdProperty);
        Assert.Equal(DeadLetterReason.InvalidId, bodyReason);
    }

    // Rules

    [Fact]
    public void Rules_reject_empty_names_and_non_positive_limits()
    {
        Assert.Throws<ArgumentException>(() => new MappingRules { IdProperty = "" });
        Assert.Throws<ArgumentException>(() => new MappingRules { Collection = "" });
        Assert.Throws<ArgumentOutOfRangeException>(() => new MappingRules { MaxBodyBytes = 0 });
    }

    [Fact]
    public void Headers_absent_from_the_dictionary_are_absent()
    {
        var result = MessageMapper.Map(Kafka("{}", key: "k", new DictionaryMessageHeaders(null)), _defaults);
        Assert.Equal(IngestOperation.Put, result.Operation);
        Assert.Equal("k", result.Id);
    }
}
