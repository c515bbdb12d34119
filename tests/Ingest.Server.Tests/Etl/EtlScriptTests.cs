using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Etl;
using Ingest.Server.Scripting;

namespace Ingest.Server.Tests.Etl;

public sealed class EtlScriptTests
{
    private static readonly ScriptLimits s_limits = new(TimeSpan.FromMilliseconds(500), 32L * 1024 * 1024);

    [Fact]
    public void Reshape_receives_the_document_and_its_metadata()
    {
        var script = Compile("""
            function transform(doc, meta) {
              return { key: doc.Customer, body: { id: meta.id, collection: meta.collection, etag: meta.etag, at: meta.lastModified, total: doc.Total * 2 },
                       headers: { region: doc.Region } };
            }
            """);

        var output = Assert.Single(script.Transform(Order("""{"Customer":"acme","Total":21,"Region":"eu"}""")));

        Assert.Equal("acme", output.Key);
        Assert.Null(output.Destination);
        Assert.Equal([new KeyValuePair<string, string>("region", "eu")], output.Headers);
        using var body = JsonDocument.Parse(output.Body);
        Assert.Equal("orders/1", body.RootElement.GetProperty("id").GetString());
        Assert.Equal("Orders", body.RootElement.GetProperty("collection").GetString());
        Assert.Equal(7, body.RootElement.GetProperty("etag").GetInt64());
        Assert.Equal("2026-11-23T10:00:00.0000000Z", body.RootElement.GetProperty("at").GetString());
        Assert.Equal(42, body.RootElement.GetProperty("total").GetInt32());
    }

    [Fact]
    public void Consecutive_documents_get_their_own_collection_and_time_in_the_metadata()
    {
        var script = Compile("function transform(doc, meta) { return { body: meta.collection + ' ' + meta.lastModified }; }");
        var first = new DateTime(2026, 11, 23, 10, 0, 0, DateTimeKind.Utc);
        var second = first.AddTicks(1);
        (string Collection, DateTime Time)[] documents = [("Orders", first), ("Orders", first), ("Lines", first), ("Lines", second), ("Orders", second), ("Orders", first)];

        var bodies = documents.Select(d => Encoding.UTF8.GetString(Assert.Single(script.Transform(
            new Document("x/1", d.Collection, 1, d.Time, DocumentFlags.None, "{}"u8.ToArray()))).Body));

        Assert.Equal(documents.Select(static d => $"\"{d.Collection} {d.Time:O}\""), bodies);
    }

    [Fact]
    public void Returning_nothing_skips_the_document()
    {
        var script = Compile("function transform(doc) { if (doc.Total < 100) return; return { body: doc }; }");

        Assert.Empty(script.Transform(Order("""{"Total":5}""")));
        Assert.Single(script.Transform(Order("""{"Total":500}""")));
    }

    [Fact]
    public void An_array_fans_out_to_several_messages_with_their_own_destinations()
    {
        var script = Compile("function transform(doc) { return doc.Lines.map(l => ({ key: l.Sku, body: l, topic: 'lines-' + l.Kind, routingKey: 'ignored' })); }");

        var outputs = script.Transform(Order("""{"Lines":[{"Sku":"a","Kind":"x"},{"Sku":"b","Kind":"y"}]}"""));

        Assert.Equal(["a", "b"], outputs.Select(static o => o.Key));
        Assert.Equal(["lines-x", "lines-y"], outputs.Select(static o => o.Destination));
        Assert.Equal("""{"Sku":"b","Kind":"y"}""", Encoding.UTF8.GetString(outputs[1].Body));
    }

    [Fact]
    public void A_throwing_script_fails_that_document_only()
    {
        var script = Compile("function transform(doc) { if (doc.Bad) throw new Error('bad order ' + doc.N); return { body: doc.N }; }");

        var error = Assert.Throws<ScriptException>(() => script.Transform(Order("""{"Bad":true,"N":1}""")));
        var output = Assert.Single(script.Transform(Order("""{"N":2}""")));

        Assert.Contains("bad order 1", error.Message, StringComparison.Ordinal);
        Assert.Equal("2", Encoding.UTF8.GetString(output.Body));
    }

    [Fact]
    public void A_script_that_loops_forever_times_out_and_the_next_document_runs()
    {
        var script = Compile("function transform(doc) { while (doc.Loop) { } return { body: 1 }; }");

        var error = Assert.Throws<ScriptException>(() => script.Transform(Order("""{"Loop":true}""")));

        Assert.Contains("time limit", error.Message, StringComparison.Ordinal);
        Assert.Single(script.Transform(Order("""{"Loop":false}""")));
    }

    [Fact]
    public void A_script_that_allocates_without_bound_hits_its_memory_limit()
    {
        Assert.True(EtlScript.TryCompile(
            "function transform(doc) { var a = []; while (true) { a.push(new Array(100000).fill(a.length)); } }",
            new ScriptLimits(TimeSpan.FromSeconds(30), 16L * 1024 * 1024), out var script, out var compileError), compileError);

        var error = Assert.Throws<ScriptException>(() => script!.Transform(Order("{}")));

        Assert.Contains("memory", error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("function transform(doc) { return 42; }", "must be a message object")]
    [InlineData("function transform(doc) { return { key: 'k' }; }", "has no body")]
    [InlineData("function transform(doc) { return { body: 1, headers: { ce_id: 'x' } }; }", "CloudEvents")]
    [InlineData("function transform(doc) { return { body: 1, key: {} }; }", "key must be a string")]
    public void Output_that_is_not_a_message_is_an_error_naming_the_problem(string source, string expected)
    {
        var script = Compile(source);

        var error = Assert.Throws<ScriptException>(() => script.Transform(Order("{}")));

        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("function transform(doc) { return { body: doc ", "Unexpected")]
    [InlineData("function other(doc) { return doc; }", "must define function transform")]
    [InlineData("throw new Error('top');", "top")]
    public void A_script_that_does_not_compile_is_refused(string source, string expected)
    {
        Assert.False(EtlScript.TryCompile(source, s_limits, out var script, out var error));

        Assert.Null(script);
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }

    private static EtlScript Compile(string source)
    {
        Assert.True(EtlScript.TryCompile(source, s_limits, out var script, out var error), error);
        return script!;
    }

    private static Document Order(string json) =>
        new("orders/1", "Orders", 7, new DateTime(2026, 11, 23, 10, 0, 0, DateTimeKind.Utc), DocumentFlags.None, Encoding.UTF8.GetBytes(json));
}
