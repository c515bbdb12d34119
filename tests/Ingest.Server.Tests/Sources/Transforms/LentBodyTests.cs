using System.Text;
using Ingest.Server.Etl;
using Ingest.Server.Scripting;
using Ingest.Server.Sources;

namespace Ingest.Server.Tests.Sources.Transforms;

/// <summary>
/// A source's message body is a pooled array, lent to the transform for its call and reused once the
/// batch is written. A script that keeps the body (or a part of it it has not read yet) past its call
/// must get a clear script error when it reads it later, never another message's bytes.
/// </summary>
public sealed class LentBodyTests
{
    private static readonly ScriptLimits s_limits = new(TimeSpan.FromMilliseconds(500), 32L * 1024 * 1024);

    [Theory]
    [InlineData("kept.name")] // read by name from the kept object's bytes
    [InlineData("kept.nested.city")] // a nested object made from them on first touch
    [InlineData("Object.keys(kept).join()")] // the whole object made from them
    [InlineData("kept")] // written out: the serializer would copy the untouched bytes
    public void A_body_kept_past_its_call_is_refused_once_its_bytes_may_hold_another_message(string readLater)
    {
        Assert.True(SourceScript.TryCompile(
            $$"""
            let kept;
            function transform(body, message) {
                if (kept === undefined) { kept = body; return { id: 'first', body: { name: body.name } }; }
                return { id: 'later', body: { seen: {{readLater}} } };
            }
            """,
            s_limits,
            out var script,
            out var error), error);

        var pooled = Encoding.UTF8.GetBytes("""{"name":"first","nested":{"city":"Oslo"}}""");
        var first = Assert.Single(script!.Transform(Input(pooled)));
        Assert.Equal("""{"name":"first"}""", Encoding.UTF8.GetString(first.Body!));

        // The batch is written and the pool hands the array to the next message.
        Encoding.UTF8.GetBytes("""{"name":"other","nested":{"city":"Rome"}}""").CopyTo(pooled, 0);
        var refused = Assert.Throws<ScriptException>(() => script.Transform(Input(pooled)));
        Assert.Contains("only during its own transform call", refused.Message, StringComparison.Ordinal);
        Assert.Contains("JSON.parse(JSON.stringify(value))", refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void What_a_script_read_or_copied_during_the_call_stays_usable_after_it()
    {
        Assert.True(SourceScript.TryCompile(
            """
            let name, copy;
            function transform(body, message) {
                if (name === undefined) { name = body.name; copy = JSON.parse(JSON.stringify(body)); return null; }
                return { id: body.name, body: { firstName: name, firstCity: copy.nested.city } };
            }
            """,
            s_limits,
            out var script,
            out var error), error);

        var pooled = Encoding.UTF8.GetBytes("""{"name":"first","nested":{"city":"Oslo"}}""");
        Assert.Empty(script!.Transform(Input(pooled)));
        Encoding.UTF8.GetBytes("""{"name":"other","nested":{"city":"Rome"}}""").CopyTo(pooled, 0);
        var later = Assert.Single(script.Transform(Input(pooled)));
        Assert.Equal("""{"firstName":"first","firstCity":"Oslo"}""", Encoding.UTF8.GetString(later.Body!));
    }

    [Fact]
    public void An_etl_document_is_a_copy_a_script_may_keep_and_read_later()
    {
        Assert.True(EtlScript.TryCompile(
            """
            let kept;
            function transform(document, metadata) {
                if (kept === undefined) { kept = document; }
                return { topic: 'out', body: { first: kept.name, now: document.name } };
            }
            """,
            s_limits,
            out var script,
            out var error), error);

        script!.Transform(Stored("first"));
        var later = Assert.Single(script.Transform(Stored("second")));
        Assert.Contains("\"first\":\"first\"", Encoding.UTF8.GetString(later.Body), StringComparison.Ordinal);
    }

    private static SourceScriptInput Input(byte[] body) =>
        new(body, false, null, null, "src", IsKafka: true, "topic", 0, 1, null, "Default", BodyChecked: true);

    private static Ingest.Documents.Document Stored(string name) =>
        new("orders/" + name, "Orders", 1, DateTime.UnixEpoch, default, Encoding.UTF8.GetBytes($$"""{"name":"{{name}}"}"""));
}
