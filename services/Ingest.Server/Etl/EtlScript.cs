using System.Globalization;
using Ingest.Documents;
using Ingest.Server.Scripting;
using Jint;
using Jint.Native;
using Jint.Native.Object;

namespace Ingest.Server.Etl;

/// <summary>
/// A task's transform: JavaScript that defines <c>function transform(document, metadata)</c>, run
/// by the <see cref="ScriptHost"/> once per document. It returns nothing (skip the document), a
/// message <c>{key, body, headers, topic | routingKey}</c> or an array of them.
/// </summary>
internal sealed class EtlScript
{
    public const string Signature = "transform(document, metadata)";

    private readonly ScriptHost _host;
    private readonly Func<JsValue, string, EtlScriptOutput> _readOutput;

    // Documents written together share their collection and time: those metadata values are made
    // once for the run (strings are immutable, so sharing them between calls is safe). Only used
    // inside the host's lock.
    private JsString? _collection;
    private long _lastModifiedTicks = -1;
    private JsString? _lastModified;

    private EtlScript(ScriptHost host)
    {
        _host = host;
        _readOutput = (value, what) => ReadOutput(host, value, what);
    }

    /// <summary>Parses and runs the script's top level (within the limits) and checks that it defines <c>transform</c>.</summary>
    public static bool TryCompile(string source, ScriptLimits limits, out EtlScript? script, out string? error)
    {
        var compiled = ScriptHost.TryCompile(source, Signature, limits, borrowsBodies: false, out var host, out error);
        script = compiled ? new EtlScript(host!) : null;
        return compiled;
    }

    /// <summary>The messages the transform returns for a stored (not deleted) document.</summary>
    /// <exception cref="ScriptException">The script threw, timed out, exceeded its memory, or returned something else than messages.</exception>
    public IReadOnlyList<EtlScriptOutput> Transform(Document document) =>
        _host.Run((Script: this, Document: document), static (host, state) => state.Script.Call(host, state.Document));

    private List<EtlScriptOutput> Call(ScriptHost host, Document document)
    {
        var body = host.ParseStoredJsonUtf8(document.Body);
        var metadata = new JsObject(host.Engine);
        metadata.FastSetDataProperty("id", document.Id);
        metadata.FastSetDataProperty("collection", CollectionOf(document.Collection));
        metadata.FastSetDataProperty("etag", document.Etag);
        metadata.FastSetDataProperty("lastModified", LastModifiedOf(document.LastModified));
        return ScriptHost.ReadOneOrMany(host.Call(body, metadata), _readOutput);
    }

    private JsString CollectionOf(string collection)
    {
        if (_collection is null || !string.Equals(_collection.ToString(), collection, StringComparison.Ordinal))
        {
            _collection = new JsString(collection);
        }

        return _collection;
    }

    private JsString LastModifiedOf(DateTime lastModified)
    {
        if (_lastModified is null || lastModified.Ticks != _lastModifiedTicks)
        {
            _lastModified = new JsString(lastModified.ToString("O", CultureInfo.InvariantCulture));
            _lastModifiedTicks = lastModified.Ticks;
        }

        return _lastModified;
    }

    private static EtlScriptOutput ReadOutput(ScriptHost host, JsValue value, string what)
    {
        if (value is not ObjectInstance message || value.IsArray())
        {
            throw new ScriptException($"{what} must be a message object {{key, body, headers, topic|routingKey}}, not {ScriptHost.Kind(value)}.");
        }

        var key = ScriptHost.OptionalString(message, "key", what);
        var destination = ScriptHost.OptionalString(message, "topic", what) ?? ScriptHost.OptionalString(message, "routingKey", what);
        var bodyValue = message.Get("body");
        if (bodyValue.IsUndefined())
        {
            throw new ScriptException($"{what} has no body; return {{body: ...}} (null for an empty JSON null body).");
        }

        var json = host.SerializeJsonUtf8(bodyValue);
        // Most transforms add no headers: no list for them.
        IReadOnlyList<KeyValuePair<string, string>> headers = [];
        var headersValue = message.Get("headers");
        if (headersValue is ObjectInstance headerObject && !headersValue.IsArray())
        {
            var added = new List<KeyValuePair<string, string>>();
            headers = added;
            foreach (var (name, descriptor) in headerObject.GetOwnProperties())
            {
                var headerName = name.ToString();
                if (headerName.StartsWith("ce_", StringComparison.OrdinalIgnoreCase)
                    || headerName.StartsWith("cloudEvents", StringComparison.OrdinalIgnoreCase)
                    || string.Equals(headerName, "content-type", StringComparison.OrdinalIgnoreCase))
                {
                    throw new ScriptException($"{what} sets header '{headerName}', which belongs to the CloudEvents mapping.");
                }

                var headerValue = descriptor.Value;
                if (!headerValue.IsUndefined() && !headerValue.IsNull())
                {
                    added.Add(new(headerName, headerValue.ToString()));
                }
            }
        }
        else if (!headersValue.IsUndefined() && !headersValue.IsNull())
        {
            throw new ScriptException($"{what}.headers must be an object of header names to values, not {ScriptHost.Kind(headersValue)}.");
        }

        return new EtlScriptOutput(key, json, headers, destination);
    }
}
