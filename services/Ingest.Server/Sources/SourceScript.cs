using System.Text;
using Ingest.Server.Scripting;
using Jint;
using Jint.Native;
using Jint.Native.Object;

namespace Ingest.Server.Sources;

/// <summary>
/// A source's transform: JavaScript that defines <c>function transform(body, message)</c>, run by
/// the <see cref="ScriptHost"/> once per message in place of the header-driven mapping. It returns
/// nothing (skip the message), an operation or an array of them: a put <c>{id, collection, body}</c>
/// (<c>collection</c> defaults to the source's) or a delete <c>{op: "delete", id}</c>.
/// </summary>
internal sealed class SourceScript
{
    public const string Signature = "transform(body, message)";

    private readonly ScriptHost _host;
    private readonly Func<JsValue, string, ScriptedOperation> _readOperation;

    // The current message's; only used inside the host's lock.
    private string _defaultCollection = string.Empty;
    private JsString? _source;
    private JsString? _destination;

    private SourceScript(ScriptHost host)
    {
        _host = host;
        _readOperation = (value, what) => ReadOperation(host, value, what, _defaultCollection);
    }

    /// <summary>Parses and runs the script's top level (within the limits) and checks that it defines <c>transform</c>.</summary>
    public static bool TryCompile(string source, ScriptLimits limits, out SourceScript? script, out string? error)
    {
        var compiled = ScriptHost.TryCompile(source, Signature, limits, out var host, out error);
        script = compiled ? new SourceScript(host!) : null;
        return compiled;
    }

    /// <summary>The operations the transform returns for one message; none skips it.</summary>
    /// <exception cref="ScriptException">The body is not JSON, or the script threw, timed out, exceeded its memory or returned something else than operations.</exception>
    public IReadOnlyList<ScriptedOperation> Transform(in SourceScriptInput input) =>
        _host.Run((Script: this, Input: input), static (host, state) => state.Script.Call(host, state.Input));

    private List<ScriptedOperation> Call(ScriptHost host, in SourceScriptInput input)
    {
        JsValue body;
        try
        {
            body = input.IsTombstone ? JsValue.Null : input.BodyChecked ? host.ParseStoredJsonUtf8(input.Body) : host.ParseJsonUtf8(input.Body);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            throw new ScriptException($"not JSON: the body cannot be given to the transform ({ex.Message})", ex);
        }

        // Data properties defined directly (the object is new: no setters or prototype to consult).
        var message = new JsObject(host.Engine);
        message.FastSetDataProperty("source", Shared(ref _source, input.Source));
        if (input.IsKafka)
        {
            message.FastSetDataProperty("topic", Shared(ref _destination, input.Destination));
            message.FastSetDataProperty("partition", JsNumber.Create(input.Partition));
            message.FastSetDataProperty("offset", JsNumber.Create(input.Offset));
        }
        else
        {
            message.FastSetDataProperty("queue", Shared(ref _destination, input.Destination));
        }

        message.FastSetDataProperty("key", input.Key is null ? JsValue.Null : new JsString(input.Key));
        message.FastSetDataProperty("messageId", input.MessageId is null ? JsValue.Null : new JsString(input.MessageId));
        var headers = new JsObject(host.Engine);
        if (input.Headers is { } list)
        {
            // A repeated header: the last value wins, as in the header-driven mapping.
            foreach (var (name, value) in list)
            {
                headers.FastSetDataProperty(name, new JsString(Encoding.UTF8.GetString(value)));
            }
        }

        message.FastSetDataProperty("headers", headers);
        _defaultCollection = input.DefaultCollection;
        return ScriptHost.ReadOneOrMany(host.Call(body, message), _readOperation);
    }

    // Messages after messages come from the same source and topic: their names are made once
    // (strings are immutable, so sharing them between calls is safe). Only inside the host's lock.
    private static JsString Shared(ref JsString? cached, string text)
    {
        if (cached is null || !string.Equals(cached.ToString(), text, StringComparison.Ordinal))
        {
            cached = new JsString(text);
        }

        return cached;
    }

    private static ScriptedOperation ReadOperation(ScriptHost host, JsValue value, string what, string defaultCollection)
    {
        if (value is not ObjectInstance operation || value.IsArray())
        {
            throw new ScriptException($"{what} must be an operation {{id, collection, body}} or {{op: 'delete', id}}, not {ScriptHost.Kind(value)}.");
        }

        var op = ScriptHost.OptionalString(operation, "op", what) ?? "put";
        var id = ScriptHost.OptionalString(operation, "id", what)
            ?? throw new ScriptException($"{what} has no id.");
        if (Encoding.UTF8.GetByteCount(id) > Ingest.Documents.DocumentStoreOptions.MaxIdBytes)
        {
            throw new ScriptException($"{what}.id is {Encoding.UTF8.GetByteCount(id)} UTF-8 bytes; the limit is {Ingest.Documents.DocumentStoreOptions.MaxIdBytes}.");
        }

        if (string.Equals(op, "delete", StringComparison.Ordinal))
        {
            return new ScriptedOperation(IngestItemKind.Delete, id, null, null);
        }

        if (!string.Equals(op, "put", StringComparison.Ordinal))
        {
            throw new ScriptException($"{what}.op is '{op}'; expected 'put' or 'delete'.");
        }

        var body = operation.Get("body");
        if (body is not ObjectInstance || body.IsArray())
        {
            throw new ScriptException($"{what}.body must be an object (a document is a JSON object), not {ScriptHost.Kind(body)}.");
        }

        var collection = ScriptHost.OptionalString(operation, "collection", what) ?? defaultCollection;
        return new ScriptedOperation(IngestItemKind.Put, id, collection, host.SerializeJsonUtf8(body));
    }
}
