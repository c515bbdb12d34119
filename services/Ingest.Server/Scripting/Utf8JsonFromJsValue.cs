using System.Buffers;
using System.Text;
using Jint;
using Jint.Native;
using Jint.Native.Object;
using Jint.Runtime;
using Jint.Runtime.Descriptors;

namespace Ingest.Server.Scripting;

/// <summary>
/// <c>JSON.stringify(value)</c> as UTF-8, byte for byte, written straight from the engine's values
/// (no intermediate UTF-16 text to encode again) for what transforms return: plain objects, arrays,
/// strings, numbers, booleans and null. A <see cref="LazyJsonObject"/> the script did not touch, or
/// a property of one it did not read, is copied from the document's bytes, only re-escaped where the
/// document's spelling differs from what <c>JSON.stringify</c> writes. Anything else (a
/// <c>toJSON</c> method, a Date, a class instance, a getter, a cycle, an array too long to walk here)
/// is left to the engine's own serializer, for the whole value, so the result is always the
/// engine's. One per engine, used by one caller at a time.
/// </summary>
internal sealed class Utf8JsonFromJsValue
{
    // Deeper values go to the engine's serializer, which reports a cycle as JSON.stringify does.
    private const int MaxDepth = 64;
    private const int MaxArrayLength = 1 << 20;

    private static readonly JsString ToJsonKey = new("toJSON");

    private readonly ArrayBufferWriter<byte> _output = new(4096);
    private readonly Engine _engine;
    private readonly Jint.Native.Json.JsonSerializer _engineSerializer;
    private readonly ObjectInstance _objectPrototype;
    private readonly ObjectInstance _arrayPrototype;
    private readonly long _maxBytes;
    private readonly LazyJsonCopier _copier;

    /// <param name="engine">The engine whose values are written.</param>
    /// <param name="maxBytes">Longer output is refused (a value may repeat one object many times over).</param>
    public Utf8JsonFromJsValue(Engine engine, long maxBytes)
    {
        _engine = engine;
        _engineSerializer = new Jint.Native.Json.JsonSerializer(engine);
        _objectPrototype = engine.Intrinsics.Object.PrototypeObject;
        _arrayPrototype = engine.Intrinsics.Array.PrototypeObject;
        _maxBytes = maxBytes;
        _copier = new LazyJsonCopier(_output);
    }

    /// <summary>The value's JSON; "null" for a value JSON cannot hold (undefined, a function), as the transforms always did.</summary>
    /// <exception cref="ScriptException">The JSON would be longer than the limit.</exception>
    public byte[] Serialize(JsValue value)
    {
        _output.ResetWrittenCount();
        if (_objectPrototype.Get(ToJsonKey).IsUndefined() && _arrayPrototype.Get(ToJsonKey).IsUndefined() && TryWrite(value, 0) == Outcome.Written)
        {
            return _output.WrittenSpan.ToArray();
        }

        var json = _engineSerializer.Serialize(value, JsValue.Undefined, JsValue.Undefined);
        return json.IsUndefined() ? "null"u8.ToArray() : Encoding.UTF8.GetBytes(json.ToString());
    }

    private enum Outcome
    {
        Written,

        // JSON.stringify leaves the value out (an object's property) or writes null (an array's element).
        Skipped,

        // For the engine's serializer.
        Unsupported,
    }

    private Outcome TryWrite(JsValue value, int depth)
    {
        switch (value)
        {
            case JsString:
                StringifyWriter.WriteString(_output, value.ToString());
                return Outcome.Written;
            case JsNumber:
                StringifyWriter.WriteNumber(_output, value.AsNumber());
                return Outcome.Written;
            case JsBoolean:
                Write(value.AsBoolean() ? "true"u8 : "false"u8);
                return Outcome.Written;
            case LazyJsonObject { IsUntouched: true } untouched when ReferenceEquals(untouched.Prototype, _objectPrototype):
                return depth < MaxDepth && _copier.TryCopy(untouched.Json.Span) ? Outcome.Written : TryWriteObject(untouched, depth);
            case LazyJsonObject or JsObject:
                return TryWriteObject((ObjectInstance)value, depth);
            case JsArray array:
                return TryWriteArray(array, depth);
            case ObjectInstance:
                return Outcome.Unsupported;
            default:
                if (value.IsNull())
                {
                    Write("null"u8);
                    return Outcome.Written;
                }

                // Undefined and symbols; a BigInt makes JSON.stringify throw, as the engine's serializer will.
                return value.IsUndefined() || value.IsSymbol() ? Outcome.Skipped : Outcome.Unsupported;
        }
    }

    private Outcome TryWriteObject(ObjectInstance value, int depth)
    {
        if (depth >= MaxDepth || !ReferenceEquals(value.Prototype, _objectPrototype) || _output.WrittenCount > _maxBytes || HasOwnToJson(value))
        {
            return TooLong() ?? Outcome.Unsupported;
        }

        Write("{"u8);
        var first = true;
        var keys = value.GetOwnPropertyKeys(Types.String);
        if (value is JsObject && _engine.Advanced.HasSharedShape(value))
        {
            // A hidden-class object (what an object literal is) holds only enumerable, writable data
            // properties: values are read from their slots, with no descriptor made per property.
            foreach (var key in keys)
            {
                var property = value.Get(key);
                if (property.IsUndefined() || property.IsSymbol())
                {
                    continue;
                }

                WriteName(key.ToString(), ref first);
                if (TryWrite(property, depth + 1) != Outcome.Written)
                {
                    return Outcome.Unsupported;
                }
            }

            Write("}"u8);
            return Outcome.Written;
        }

        foreach (var key in keys)
        {
            var descriptor = value.GetOwnProperty(key);
            if (descriptor == PropertyDescriptor.Undefined || !descriptor.Enumerable)
            {
                continue;
            }

            if (!descriptor.IsDataDescriptor())
            {
                return Outcome.Unsupported;
            }

            var name = key.ToString();
            if (descriptor is LazyJsonProperty lazy && !lazy.UnreadJson.IsEmpty)
            {
                WriteName(name, ref first);
                if (!_copier.TryCopy(lazy.UnreadJson.Span) && TryWrite(lazy.Value, depth + 1) != Outcome.Written)
                {
                    return Outcome.Unsupported;
                }

                continue;
            }

            var property = descriptor.Value;
            if (property.IsUndefined() || property.IsSymbol())
            {
                continue;
            }

            WriteName(name, ref first);
            if (TryWrite(property, depth + 1) != Outcome.Written)
            {
                return Outcome.Unsupported;
            }
        }

        Write("}"u8);
        return Outcome.Written;
    }

    private Outcome TryWriteArray(JsArray array, int depth)
    {
        var length = array.Length;
        if (depth >= MaxDepth || length > MaxArrayLength || !ReferenceEquals(array.Prototype, _arrayPrototype) || _output.WrittenCount > _maxBytes
            || HasOwnToJson(array))
        {
            return TooLong() ?? Outcome.Unsupported;
        }

        Write("["u8);
        for (uint i = 0; i < length; i++)
        {
            if (i > 0)
            {
                Write(","u8);
            }

            switch (TryWrite(array[i], depth + 1))
            {
                case Outcome.Skipped:
                    Write("null"u8);
                    break;
                case Outcome.Unsupported:
                    return Outcome.Unsupported;
            }
        }

        Write("]"u8);
        return Outcome.Written;
    }

    // JSON.stringify calls an object's toJSON, enumerable or not.
    private static bool HasOwnToJson(ObjectInstance value) => value.GetOwnProperty(ToJsonKey) != PropertyDescriptor.Undefined;

    private Outcome? TooLong() => _output.WrittenCount > _maxBytes
        ? throw new ScriptException($"the returned value's JSON is longer than the script's memory limit ({_maxBytes} bytes).")
        : null;

    private void WriteName(string name, ref bool first)
    {
        if (!first)
        {
            Write(","u8);
        }

        first = false;
        StringifyWriter.WriteString(_output, name);
        Write(":"u8);
    }

    private void Write(ReadOnlySpan<byte> bytes) => _output.Write(bytes);
}
