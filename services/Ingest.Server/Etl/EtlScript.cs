using System.Globalization;
using System.Text;
using Ingest.Documents;
using Jint;
using Jint.Native;
using Jint.Native.Function;
using Jint.Native.Json;
using Jint.Native.Object;

namespace Ingest.Server.Etl;

/// <summary>
/// A task's transform: JavaScript that defines <c>function transform(document, metadata)</c>, run by
/// Jint once per document with a time and memory limit. It returns nothing (skip the document), a
/// message <c>{key, body, headers, topic | routingKey}</c> or an array of them. One engine per task,
/// used by one caller at a time.
/// </summary>
internal sealed class EtlScript
{
    public const string FunctionName = "transform";

    private readonly Engine _engine;
    private readonly Function _function;
    private readonly JsonParser _parser;
    private readonly JsonSerializer _serializer;
    private readonly object _gate = new();

    private EtlScript(Engine engine, Function function)
    {
        _engine = engine;
        _function = function;
        _parser = new JsonParser(engine);
        _serializer = new JsonSerializer(engine);
    }

    /// <summary>Parses and runs the script's top level (within the limits) and checks that it defines <c>transform</c>.</summary>
    public static bool TryCompile(string source, EtlScriptLimits limits, out EtlScript? script, out string? error)
    {
        script = null;
        Prepared<Acornima.Ast.Script> prepared;
        try
        {
            prepared = Engine.PrepareScript(source, "transform.js", strict: true);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            error = ex.Message;
            return false;
        }

        var engine = new Engine(options => options
            .Strict()
            .TimeoutInterval(limits.Timeout)
            .LimitMemory(limits.MemoryBytes)
            .LimitRecursion(256));
        try
        {
            engine.Execute(prepared);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            error = $"running the script's top level failed: {ex.Message}";
            return false;
        }

        if (engine.GetValue(FunctionName) is not Function function)
        {
            error = $"the script must define function {FunctionName}(document, metadata).";
            return false;
        }

        script = new EtlScript(engine, function);
        error = null;
        return true;
    }

    /// <summary>The messages the transform returns for a stored (not deleted) document.</summary>
    /// <exception cref="EtlScriptException">The script threw, timed out, exceeded its memory, or returned something else than messages.</exception>
    public IReadOnlyList<EtlScriptOutput> Transform(Document document)
    {
        lock (_gate)
        {
            try
            {
                _engine.Constraints.Reset();
                var body = _parser.Parse(Encoding.UTF8.GetString(document.Body.Span));
                var metadata = new JsObject(_engine);
                metadata.Set("id", document.Id);
                metadata.Set("collection", document.Collection);
                metadata.Set("etag", document.Etag);
                metadata.Set("lastModified", document.LastModified.ToString("O", CultureInfo.InvariantCulture));
                var result = _engine.Call(_function, body, metadata);
                return ReadOutputs(result);
            }
            catch (EtlScriptException)
            {
                throw;
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                // A timeout or limit can leave frames behind; the next document starts clean.
                _engine.Advanced.ResetCallStack();
                throw new EtlScriptException(Describe(ex), ex);
            }
        }
    }

    private static string Describe(Exception ex) => ex switch
    {
        TimeoutException => "the script ran longer than its time limit",
        Jint.Runtime.MemoryLimitExceededException => $"the script exceeded its memory limit ({ex.Message})",
        Jint.Runtime.RecursionDepthOverflowException => "the script recursed too deep",
        _ => ex.Message,
    };

    private List<EtlScriptOutput> ReadOutputs(JsValue result)
    {
        var outputs = new List<EtlScriptOutput>();
        if (result.IsUndefined() || result.IsNull())
        {
            return outputs;
        }

        if (result.IsArray())
        {
            var array = result.AsArray();
            for (uint i = 0; i < array.Length; i++)
            {
                outputs.Add(ReadOutput(array[i], $"element {i} of the returned array"));
            }
        }
        else
        {
            outputs.Add(ReadOutput(result, "the returned value"));
        }

        return outputs;
    }

    private EtlScriptOutput ReadOutput(JsValue value, string what)
    {
        if (value is not ObjectInstance message || value.IsArray())
        {
            throw new EtlScriptException($"{what} must be a message object {{key, body, headers, topic|routingKey}}, not {Kind(value)}.");
        }

        var key = OptionalString(message, "key", what);
        var destination = OptionalString(message, "topic", what) ?? OptionalString(message, "routingKey", what);
        var bodyValue = message.Get("body");
        if (bodyValue.IsUndefined())
        {
            throw new EtlScriptException($"{what} has no body; return {{body: ...}} (null for an empty JSON null body).");
        }

        var json = _serializer.Serialize(bodyValue, JsValue.Undefined, JsValue.Undefined);
        var headers = new List<KeyValuePair<string, string>>();
        var headersValue = message.Get("headers");
        if (headersValue is ObjectInstance headerObject && !headersValue.IsArray())
        {
            foreach (var (name, descriptor) in headerObject.GetOwnProperties())
            {
                var headerName = name.ToString();
                if (headerName.StartsWith("ce_", StringComparison.OrdinalIgnoreCase)
                    || headerName.StartsWith("cloudEvents", StringComparison.OrdinalIgnoreCase)
                    || string.Equals(headerName, "content-type", StringComparison.OrdinalIgnoreCase))
                {
                    throw new EtlScriptException($"{what} sets header '{headerName}', which belongs to the CloudEvents mapping.");
                }

                var headerValue = descriptor.Value;
                if (!headerValue.IsUndefined() && !headerValue.IsNull())
                {
                    headers.Add(new(headerName, headerValue.ToString()));
                }
            }
        }
        else if (!headersValue.IsUndefined() && !headersValue.IsNull())
        {
            throw new EtlScriptException($"{what}.headers must be an object of header names to values, not {Kind(headersValue)}.");
        }

        return new EtlScriptOutput(key, Encoding.UTF8.GetBytes(json.IsUndefined() ? "null" : json.ToString()), headers, destination);
    }

    private static string? OptionalString(ObjectInstance message, string property, string what)
    {
        var value = message.Get(property);
        if (value.IsUndefined() || value.IsNull())
        {
            return null;
        }

        if (value.IsString() || value.IsNumber())
        {
            var text = value.ToString();
            return text.Length == 0 ? throw new EtlScriptException($"{what}.{property} is empty.") : text;
        }

        throw new EtlScriptException($"{what}.{property} must be a string, not {Kind(value)}.");
    }

    private static string Kind(JsValue value) => value.IsArray() ? "an array" : value.Type.ToString().ToLowerInvariant();
}
