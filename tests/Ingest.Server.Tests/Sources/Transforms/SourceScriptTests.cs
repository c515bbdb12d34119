using System.Text;
using Ingest.Server.Scripting;
using Ingest.Server.Sources;

namespace Ingest.Server.Tests.Sources.Transforms;

/// <summary>What a source's script may return, and the error that names each wrong result.</summary>
public sealed class SourceScriptTests
{
    private static readonly ScriptLimits s_limits = new(TimeSpan.FromMilliseconds(500), 32L * 1024 * 1024);

    [Fact]
    public void Puts_default_to_the_source_collection_and_deletes_need_only_an_id()
    {
        var script = Compile("function transform(b, m) { return [{ id: b.n, body: { n: b.n } }, { id: 'x', collection: 'Other', body: {} }, { op: 'delete', id: m.key }]; }");

        var operations = script.Transform(Input("""{"n":5}""", key: "old"));

        Assert.Equal(3, operations.Count);
        Assert.Equal(new ScriptedOperation(IngestItemKind.Put, "5", "Default", operations[0].Body), operations[0]);
        Assert.Equal("""{"n":5}""", Encoding.UTF8.GetString(operations[0].Body!));
        Assert.Equal("Other", operations[1].Collection);
        Assert.Equal(new ScriptedOperation(IngestItemKind.Delete, "old", null, null), operations[2]);
    }

    [Theory]
    [InlineData("return 5;", "the returned value must be an operation")]
    [InlineData("return [{ id: 'a', body: {} }, 'b'];", "element 1 of the returned array must be an operation")]
    [InlineData("return { body: {} };", "the returned value has no id")]
    [InlineData("return { id: '', body: {} };", "the returned value.id is empty")]
    [InlineData("return { id: {}, body: {} };", "the returned value.id must be a string, not object")]
    [InlineData("return { id: 'a' };", "the returned value.body must be an object (a document is a JSON object), not undefined")]
    [InlineData("return { id: 'a', body: [1] };", "the returned value.body must be an object (a document is a JSON object), not an array")]
    [InlineData("return { id: 'a', op: 'upsert', body: {} };", "the returned value.op is 'upsert'; expected 'put' or 'delete'")]
    [InlineData("return { id: 'a'.repeat(513), body: {} };", "the returned value.id is 513 UTF-8 bytes; the limit is 512")]
    public void A_result_that_is_not_operations_is_refused_naming_what_is_wrong(string body, string expected)
    {
        var script = Compile($"function transform(b, m) {{ {body} }}");

        var error = Assert.Throws<ScriptException>(() => script.Transform(Input("{}")));

        Assert.StartsWith(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_body_that_is_not_json_is_refused_before_the_script_runs_and_a_tombstone_is_null()
    {
        var script = Compile("function transform(b, m) { return b === null ? { op: 'delete', id: m.key } : { id: 'a', body: b }; }");

        Assert.StartsWith("not JSON: ", Assert.Throws<ScriptException>(() => script.Transform(Input("{oops"))).Message, StringComparison.Ordinal);
        Assert.Equal(IngestItemKind.Delete, Assert.Single(script.Transform(Input(null, key: "gone"))).Kind);
    }

    [Fact]
    public void The_message_is_an_ordinary_object_with_its_properties_in_order_and_headers_made_when_read()
    {
        // Keys, values and JSON as scripts always saw them; headers (the last repeat wins) a fresh
        // object per message that the script may change; a message kept past its call still reads.
        var script = Compile("""
            var kept;
            function transform(b, m) {
              const before = kept === undefined ? null : JSON.stringify(kept);
              kept = kept ?? m;
              const keys = Object.keys(m).join();
              m.headers.added = 'x';
              return { id: 'a', body: { keys, json: JSON.stringify(m), before, h: m.headers.h, headersKeys: Object.keys(m.headers).join(), same: m.headers === m.headers } };
            }
            """);
        KeyValuePair<string, byte[]>[] headers = [new("h", "1"u8.ToArray()), new("other", "o"u8.ToArray()), new("h", "2"u8.ToArray())];
        var kafka = new SourceScriptInput("{}"u8.ToArray(), false, "k", headers, "src", IsKafka: true, "topic", 3, 42, null, "Default");
        var rabbit = new SourceScriptInput("{}"u8.ToArray(), false, null, null, "src", IsKafka: false, "queue", 0, 0, "mid", "Default");

        var first = Encoding.UTF8.GetString(Assert.Single(script.Transform(kafka)).Body!);
        var second = Encoding.UTF8.GetString(Assert.Single(script.Transform(rabbit)).Body!);

        Assert.Equal(
            """{"keys":"source,topic,partition,offset,key,messageId,headers","json":"{\"source\":\"src\",\"topic\":\"topic\",\"partition\":3,\"offset\":42,\"key\":\"k\",\"messageId\":null,\"headers\":{\"h\":\"2\",\"other\":\"o\",\"added\":\"x\"}}","before":null,"h":"2","headersKeys":"h,other,added","same":true}""",
            first);
        Assert.Equal(
            """{"keys":"source,queue,key,messageId,headers","json":"{\"source\":\"src\",\"queue\":\"queue\",\"key\":null,\"messageId\":\"mid\",\"headers\":{\"added\":\"x\"}}","before":"{\"source\":\"src\",\"topic\":\"topic\",\"partition\":3,\"offset\":42,\"key\":\"k\",\"messageId\":null,\"headers\":{\"h\":\"2\",\"other\":\"o\",\"added\":\"x\"}}","headersKeys":"added","same":true}""",
            second);
    }

    [Fact]
    public void A_script_without_transform_does_not_compile_and_names_the_signature()
    {
        Assert.False(SourceScript.TryCompile("function other() {}", s_limits, out _, out var error));
        Assert.Equal("the script must define function transform(body, message).", error);
    }

    private static SourceScript Compile(string source)
    {
        Assert.True(SourceScript.TryCompile(source, s_limits, out var script, out var error), error);
        return script!;
    }

    private static SourceScriptInput Input(string? body, string? key = null) =>
        new(body is null ? default : System.Text.Encoding.UTF8.GetBytes(body), body is null, key, null, "src", IsKafka: true, "topic", 0, 1, null, "Default");
}
