using Jint;
using Jint.Native;
using Jint.Native.Function;
using Jint.Native.Object;

namespace Ingest.Server.Scripting;

/// <summary>
/// The JavaScript engine behind every transform (ETL tasks' and sources'): Jint running a script
/// that defines <c>function transform(...)</c>, compiled once, then called once per input within a
/// time and memory limit. One engine per script, so calls are serialized; a failed call leaves the
/// engine clean for the next input.
/// </summary>
internal sealed class ScriptHost
{
    public const string FunctionName = "transform";

    private readonly Engine _engine;
    private readonly Function _function;
    private readonly Utf8JsonToJsValue _parser;
    private readonly Utf8JsonFromJsValue _serializer;
    private readonly Lock _gate = new();

    private ScriptHost(Engine engine, Function function, ScriptLimits limits, bool borrowsBodies)
    {
        _engine = engine;
        _function = function;
        _parser = new Utf8JsonToJsValue(engine, borrowsBodies);
        _serializer = new Utf8JsonFromJsValue(engine, limits.MemoryBytes);
    }

    /// <summary>The engine, for building arguments inside <see cref="Run{TState, TResult}"/>.</summary>
    public Engine Engine => _engine;

    /// <summary>
    /// Parses and runs the script's top level (within the limits) and checks that it defines
    /// <c>transform</c>; <paramref name="signature"/> (e.g. <c>transform(document, metadata)</c>) is named in the error.
    /// </summary>
    /// <param name="borrowsBodies">The documents given to a call are lent for that call only (see <see cref="Utf8JsonToJsValue"/>).</param>
    public static bool TryCompile(string source, string signature, ScriptLimits limits, bool borrowsBodies, out ScriptHost? host, out string? error)
    {
        host = null;
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
            error = $"the script must define function {signature}.";
            return false;
        }

        host = new ScriptHost(engine, function, limits, borrowsBodies);
        error = null;
        return true;
    }

    /// <summary>
    /// One call of the transform, serialized with other calls: <paramref name="run"/> builds the
    /// arguments, calls <see cref="Call"/> and reads the result, all within the limits.
    /// </summary>
    /// <exception cref="ScriptException">The script threw, timed out, exceeded a limit, or <paramref name="run"/> refused its result.</exception>
    public TResult Run<TState, TResult>(TState state, Func<ScriptHost, TState, TResult> run)
    {
        ArgumentNullException.ThrowIfNull(run);
        lock (_gate)
        {
            try
            {
                _engine.Constraints.Reset();
                return run(this, state);
            }
            catch (ScriptException)
            {
                throw;
            }
            catch (Exception ex) when (ex is not OutOfMemoryException)
            {
                // A timeout or limit can leave frames behind; the next input starts clean.
                _engine.Advanced.ResetCallStack();
                throw new ScriptException(Describe(ex), ex);
            }
            finally
            {
                _parser.EndCall();
            }
        }
    }

    /// <summary>Calls <c>transform</c>; only inside <see cref="Run{TState, TResult}"/>.</summary>
    public JsValue Call(JsValue first, JsValue second) => _engine.Call(_function, first, second);

    /// <summary>
    /// A UTF-8 JSON document as a JavaScript value, as <c>JSON.parse</c> gives it (read lazily: the
    /// bytes must stay unchanged while the engine may hold the value, also after the call, unless the
    /// host borrows bodies: then only during the call); only inside <see cref="Run{TState, TResult}"/>.
    /// </summary>
    /// <exception cref="System.Text.Json.JsonException">The bytes are not one JSON value.</exception>
    public JsValue ParseJsonUtf8(ReadOnlyMemory<byte> json) => _parser.Parse(json);

    /// <summary>As <see cref="ParseJsonUtf8"/> for a document the store checked when it was written: not checked again.</summary>
    public JsValue ParseStoredJsonUtf8(ReadOnlyMemory<byte> json) => _parser.ParseStored(json);

    /// <summary>A value as <c>JSON.stringify</c> writes it, in UTF-8; <c>null</c> for a value JSON cannot hold (undefined, a function); only inside <see cref="Run{TState, TResult}"/>.</summary>
    public byte[] SerializeJsonUtf8(JsValue value) => _serializer.Serialize(value);

    /// <summary>An optional string (or number) property (a name made once, as a <see cref="JsString"/>, is not made again per call); empty strings and other types are refused, naming <paramref name="what"/>.</summary>
    public static string? OptionalString(ObjectInstance value, JsValue property, string what)
    {
        var found = value.Get(property);
        if (found.IsUndefined() || found.IsNull())
        {
            return null;
        }

        if (found.IsString() || found.IsNumber())
        {
            var text = found.ToString();
            return text.Length == 0 ? throw new ScriptException($"{what}.{property} is empty.") : text;
        }

        throw new ScriptException($"{what}.{property} must be a string, not {Kind(found)}.");
    }

    /// <summary>How a value is named in an error: "an array", "object", "string"...</summary>
    public static string Kind(JsValue value) => value.IsArray() ? "an array" : value.Type.ToString().ToLowerInvariant();

    /// <summary>Undefined or null: nothing; an array: its elements; anything else: itself. Each is read by <paramref name="read"/>.</summary>
    public static List<TOutput> ReadOneOrMany<TOutput>(JsValue result, Func<JsValue, string, TOutput> read)
    {
        ArgumentNullException.ThrowIfNull(read);
        var outputs = new List<TOutput>();
        if (result.IsUndefined() || result.IsNull())
        {
            return outputs;
        }

        if (result.IsArray())
        {
            var array = result.AsArray();
            for (uint i = 0; i < array.Length; i++)
            {
                outputs.Add(read(array[i], $"element {i} of the returned array"));
            }
        }
        else
        {
            outputs.Add(read(result, "the returned value"));
        }

        return outputs;
    }

    private static string Describe(Exception ex) => ex switch
    {
        TimeoutException => "the script ran longer than its time limit",
        Jint.Runtime.MemoryLimitExceededException => $"the script exceeded its memory limit ({ex.Message})",
        Jint.Runtime.RecursionDepthOverflowException => "the script recursed too deep",
        _ => ex.Message,
    };
}
