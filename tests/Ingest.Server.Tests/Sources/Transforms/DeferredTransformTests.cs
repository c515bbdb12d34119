using System.Text;
using Ingest.Contracts.Messages;
using Ingest.Server.Scripting;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Tests.Sources.Transforms;

/// <summary>
/// The path a source takes: the consume thread captures and checks the body (<see cref="IngestItemMapper.Defer"/>),
/// the batch writer runs the script on it without checking it again (<see cref="IngestItemMapper.TransformAwaiting"/>).
/// Each script gives what it gives on the body checked as it is read (<see cref="IngestItemMapper.Transform"/>).
/// </summary>
public sealed class DeferredTransformTests
{
    private const string Body =
        """{"id":"c1","name":{"first":"Ana","last":"Weiß","display":"Ana Weiß"},"tags":["vip","b2b",{"k":"x\"y"}],"n":1.5,"active":true,"address":{"city":"Luleå","geo":{"lat":65.58,"lon":22.15}},"esc\u0061ped":"a\nb","gone":[1,2]}""";

    private static readonly ScriptLimits s_limits = new(TimeSpan.FromMilliseconds(500), 32L * 1024 * 1024);
    private static readonly MappingRules s_rules = new() { Collection = "Customers" };

    [Theory]
    [InlineData("return { id: b.id, body: { name: b.name.display, city: b.address.city, lat: b.address.geo.lat, tag: b.tags[1], k: b.tags[2].k, n: b.n * 2, active: b.active } };")]
    [InlineData("b.tags.push('new'); b.name.first = 'Anna'; delete b.gone; delete b.address.geo; b.added = { x: [1, null] }; return { id: m.key, body: b };")]
    [InlineData("return { id: m.key, body: b };")]
    [InlineData("return [{ id: 'a', body: b.address }, { id: 'b', body: { all: Object.keys(b), escaped: b.escaped } }, { op: 'delete', id: 'old' }];")]
    [InlineData("return { id: m.key, body: JSON.parse(JSON.stringify(b)) };")]
    public void A_script_gives_the_same_operations_on_a_checked_body_as_on_one_it_checks(string code)
    {
        var script = Compile($"function transform(b, m) {{ {code} }}");

        var deferred = Deferred(script, Body);
        var direct = Direct(script, Body);

        Assert.Equal(IngestItemKind.Transformed, deferred.Kind);
        Assert.Equal(IngestItemKind.Transformed, direct.Kind);
        Assert.Equal(Describe(direct.Operations!), Describe(deferred.Operations!));
    }

    [Fact]
    public void The_untouched_body_is_copied_as_json_stringify_writes_it()
    {
        var script = Compile("function transform(b, m) { return { id: m.key, body: b }; }");

        var put = Assert.Single(Deferred(script, " {\"a\" : \"\\u0041\", \"b\":[ 1 , 2.50 ]} ").Operations!);

        Assert.Equal("""{"a":"A","b":[1,2.5]}""", Encoding.UTF8.GetString(put.Body!));
    }

    [Fact]
    public void Null_drops_the_message_and_a_throw_dead_letters_it_with_the_reason()
    {
        var script = Compile("function transform(b, m) { if (b.drop) return null; if (b.fail) throw new Error('refused ' + b.fail); return { id: 'a', body: {} }; }");

        var dropped = Deferred(script, """{"drop":true}""");
        var failed = Deferred(script, """{"fail":"x"}""");

        Assert.Equal(IngestItemKind.Transformed, dropped.Kind);
        Assert.Empty(dropped.Operations!);
        Assert.Equal(IngestItemKind.DeadLetter, failed.Kind);
        Assert.Equal(Direct(script, """{"fail":"x"}""").DeadLetterReason, failed.DeadLetterReason);
        Assert.Equal("transform failed: refused x", failed.DeadLetterReason);
    }

    [Theory]
    [InlineData("{oops")]
    [InlineData("{\"a\":1} {\"b\":2}")]
    [InlineData("")]
    [InlineData("[1,2")]
    public void A_body_that_is_not_json_is_left_unchecked_and_dead_lettered_with_the_same_reason(string body)
    {
        var script = Compile("function transform(b, m) { return { id: 'a', body: {} }; }");

        Assert.False(Defer(body).BodyValidated);
        var deferred = Deferred(script, body);

        Assert.Equal(IngestItemKind.DeadLetter, deferred.Kind);
        Assert.Equal(Direct(script, body).DeadLetterReason, deferred.DeadLetterReason);
        Assert.StartsWith("transform failed: not JSON: ", deferred.DeadLetterReason, StringComparison.Ordinal);
    }

    [Fact]
    public void A_body_that_is_not_utf8_is_named_so_and_json_that_is_not_an_object_still_reaches_the_script()
    {
        var script = Compile("function transform(b, m) { return { id: 'a', body: { v: b } }; }");
        byte[] invalid = [(byte)'"', 0xC3, (byte)'"'];

        var item = IngestItemMapper.Defer(Message(invalid), new KafkaHeadersView(), invalid, Position());
        var notUtf8 = IngestItemMapper.TransformAwaiting(item, script, "src", true, s_rules);
        var array = Deferred(script, "[1,\"x\",{\"y\":null}]");

        Assert.False(item.BodyValidated);
        Assert.Equal("not JSON: the body is not valid UTF-8 at byte 1", notUtf8.DeadLetterReason);
        Assert.True(Defer("[1]").BodyValidated);
        Assert.Equal("""{"v":[1,"x",{"y":null}]}""", Encoding.UTF8.GetString(Assert.Single(array.Operations!).Body!));
    }

    private static IngestItem Deferred(SourceScript script, string body)
    {
        var item = Defer(body);
        return IngestItemMapper.TransformAwaiting(item, script, "src", true, s_rules);
    }

    private static IngestItem Defer(string body)
    {
        var bytes = Encoding.UTF8.GetBytes(body);
        return IngestItemMapper.Defer(Message(bytes), new KafkaHeadersView(), bytes, Position());
    }

    private static IngestItem Direct(SourceScript script, string body)
    {
        var bytes = Encoding.UTF8.GetBytes(body);
        return IngestItemMapper.Transform(Message(bytes), script, "src", true, s_rules, new KafkaHeadersView(), bytes, Position());
    }

    private static IncomingMessage Message(byte[] body) => IncomingMessage.FromKafka("topic", "k1"u8, true, body, false, null);

    private static ItemPosition Position() => new("src", 0, 7, 0);

    private static string Describe(IReadOnlyList<ScriptedOperation> operations) =>
        string.Join("\n", operations.Select(o => $"{o.Kind} {o.Id} {o.Collection} {(o.Body is null ? "-" : Encoding.UTF8.GetString(o.Body))}"));

    private static SourceScript Compile(string source)
    {
        Assert.True(SourceScript.TryCompile(source, s_limits, out var script, out var error), error);
        return script!;
    }
}
