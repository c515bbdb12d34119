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

    // The message argument's properties, in the order scripts have always seen them.
    // The headers object is made when the script first reads it (most never do), from the list
    // the message object keeps as its state.
    private static readonly JsObjectLayout KafkaMessage = JsObjectLayout.CreateBuilder()
        .Add("source").Add("topic").Add("partition").Add("offset").Add("key").Add("messageId").AddLazy("headers", Headers).Build();

    private static readonly JsObjectLayout RabbitMqMessage = JsObjectLayout.CreateBuilder()
        .Add("source").Add("queue").Add("key").Add("messageId").AddLazy("headers", Headers).Build();

    // The operation's property names, made once rather than per read.
    private static readonly JsString OpName = new("op");
    private static readonly JsString IdName = new("id");
    private static readonly JsString CollectionName = new("collection");
    private static readonly JsString BodyName = new("body");

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
        var compiled = ScriptHost.TryCompile(source, Signature, limits, borrowsBodies: true, out var host, out error);
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

        // The message as an object of a fixed layout: one hidden class for every message of the
        // source, values in slots, no property descriptors or dictionary per message.
        var key = input.Key is null ? JsValue.Null : new JsString(input.Key);
        var messageId = input.MessageId is null ? JsValue.Null : new JsString(input.MessageId);
        var message = input.IsKafka
            ? JsObject.Create(
                host.Engine,
                KafkaMessage,
                [Shared(ref _source, input.Source), Shared(ref _destination, input.Destination), JsNumber.Create(input.Partition), JsNumber.Create(input.Offset), key, messageId, null],
                input.Headers)
            : JsObject.Create(host.Engine, RabbitMqMessage, [Shared(ref _source, input.Source), Shared(ref _destination, input.Destination), key, messageId, null], input.Headers);
        _defaultCollection = input.DefaultCollection;
        return ScriptHost.ReadOneOrMany(host.Call(body, message), _readOperation);
    }

    // The message's headers (its object's lazy state: the list, or null when it has none) as an object.
    private static JsObject Headers(JsObject message, object? state)
    {
        var headers = new JsObject(message.Engine);
        if (state is IReadOnlyList<KeyValuePair<string, byte[]>> list)
        {
            // A repeated header: the last value wins, as in the header-driven mapping.
            foreach (var (name, value) in list)
            {
                headers.FastSetDataProperty(name, new JsString(Encoding.UTF8.GetString(value)));
            }
        }

        return headers;
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

        var op = ScriptHost.OptionalString(operation, OpName, what) ?? "put";
        var id = ScriptHost.OptionalString(operation, IdName, what)
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

        var body = operation.Get(BodyName);
        if (body is not ObjectInstance || body.IsArray())
        {
            throw new ScriptException($"{what}.body must be an object (a document is a JSON object), not {ScriptHost.Kind(body)}.");
        }

        var collection = ScriptHost.OptionalString(operation, CollectionName, what) ?? defaultCollection;
        return new ScriptedOperation(IngestItemKind.Put, id, collection, host.SerializeJsonUtf8(body));
    }
}
