using System.Buffers;
using System.Buffers.Text;
using System.Text;
using System.Text.Json;
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

    // An object with more properties is written from its values (whose dictionary drops repeats).
    private const int MaxCopiedNames = 256;
    private static readonly JsonReaderOptions ReaderOptions = new() { MaxDepth = Utf8JsonToJsValue.MaxDepth };

    // JSON.stringify escapes these; everything else is written as it is.
    private static readonly SearchValues<char> Escaped = SearchValues.Create(
        "\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f\"\\"
        + string.Create(0x800, 0, static (span, _) =>
        {
            for (var i = 0; i < span.Length; i++)
            {
                span[i] = (char)(0xD800 + i);
            }
        }));

    private static readonly JsString ToJsonKey = new("toJSON");

    private readonly ArrayBufferWriter<byte> _output = new(4096);
    private readonly Jint.Native.Json.JsonSerializer _engineSerializer;
    private readonly ObjectInstance _objectPrototype;
    private readonly ObjectInstance _arrayPrototype;
    private readonly long _maxBytes;
    private readonly List<int> _nameHashes = [];
    private readonly List<int> _objectStarts = [];

    /// <param name="engine">The engine whose values are written.</param>
    /// <param name="maxBytes">Longer output is refused (a value may repeat one object many times over).</param>
    public Utf8JsonFromJsValue(Engine engine, long maxBytes)
    {
        _engineSerializer = new Jint.Native.Json.JsonSerializer(engine);
        _objectPrototype = engine.Intrinsics.Object.PrototypeObject;
        _arrayPrototype = engine.Intrinsics.Array.PrototypeObject;
        _maxBytes = maxBytes;
    }

    /// <summary>The value's JSON; "null" for a value JSON cannot hold (undefined, a function), as the transforms always did.</summary>
    /// <exception cref="ScriptException">The JSON would be longer than the limit.</exception>
    public byte[] Serialize(JsValue value)
    {
        _output.ResetWrittenCount();
        if (_objectPrototype.Get("toJSON").IsUndefined() && _arrayPrototype.Get("toJSON").IsUndefined() && TryWrite(value, 0) == Outcome.Written)
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
                WriteString(value.ToString());
                return Outcome.Written;
            case JsNumber:
                WriteNumber(value.AsNumber());
                return Outcome.Written;
            case JsBoolean:
                Write(value.AsBoolean() ? "true"u8 : "false"u8);
                return Outcome.Written;
            case LazyJsonObject { IsUntouched: true } untouched when ReferenceEquals(untouched.Prototype, _objectPrototype):
                return depth < MaxDepth && TryCopy(untouched.Json.Span) ? Outcome.Written : TryWriteObject(untouched, depth);
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
                if (!TryCopy(lazy.UnreadJson.Span) && TryWrite(lazy.Value, depth + 1) != Outcome.Written)
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

    /// <summary>
    /// Writes a value read from a document as <c>JSON.stringify</c> would write what <c>JSON.parse</c>
    /// makes of it; false (nothing written) when that needs the value itself: an object with an
    /// escaped or repeated property name (the last duplicate wins in <c>JSON.parse</c>).
    /// </summary>
    private bool TryCopy(ReadOnlySpan<byte> json)
    {
        var mark = _output.WrittenCount;
        var hashes = _nameHashes;
        var reader = new Utf8JsonReader(json, ReaderOptions);
        var previous = JsonTokenType.None;

        // The open objects' names as hashes, each object's from its start in _objectStarts.
        hashes.Clear();
        _objectStarts.Clear();
        while (reader.Read())
        {
            var token = reader.TokenType;
            if (previous is not (JsonTokenType.None or JsonTokenType.StartObject or JsonTokenType.StartArray or JsonTokenType.PropertyName)
                && token is not (JsonTokenType.EndObject or JsonTokenType.EndArray))
            {
                Write(","u8);
            }

            switch (token)
            {
                case JsonTokenType.StartObject:
                    _objectStarts.Add(hashes.Count);
                    Write("{"u8);
                    break;
                case JsonTokenType.EndObject:
                    var start = _objectStarts[^1];
                    _objectStarts.RemoveAt(_objectStarts.Count - 1);
                    hashes.RemoveRange(start, hashes.Count - start);
                    Write("}"u8);
                    break;
                case JsonTokenType.StartArray:
                    Write("["u8);
                    break;
                case JsonTokenType.EndArray:
                    Write("]"u8);
                    break;
                case JsonTokenType.PropertyName:
                    if (reader.ValueIsEscaped || !AddName(reader.ValueSpan))
                    {
                        Rewind(mark);
                        return false;
                    }

                    Write("\""u8);
                    Write(reader.ValueSpan);
                    Write("\":"u8);
                    break;
                case JsonTokenType.String:
                    if (reader.ValueIsEscaped)
                    {
                        WriteString(Utf8JsonToJsValue.Unescape(reader.ValueSpan));
                    }
                    else
                    {
                        Write("\""u8);
                        Write(reader.ValueSpan);
                        Write("\""u8);
                    }

                    break;
                case JsonTokenType.Number:
                    CopyNumber(reader.ValueSpan);
                    break;
                case JsonTokenType.True:
                    Write("true"u8);
                    break;
                case JsonTokenType.False:
                    Write("false"u8);
                    break;
                default:
                    Write("null"u8);
                    break;
            }

            previous = token;
        }

        return true;
    }

    // False if the open object may already have the name (equal hashes count as a repeat: the
    // value path then gives the exact answer), or has too many names to compare each new one with all.
    private bool AddName(ReadOnlySpan<byte> name)
    {
        var hash = new HashCode();
        hash.AddBytes(name);
        var value = hash.ToHashCode();
        var names = System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_nameHashes)[_objectStarts[^1]..];
        if (names.Length >= MaxCopiedNames || names.Contains(value))
        {
            return false;
        }

        _nameHashes.Add(value);
        return true;
    }

    private void Rewind(int mark)
    {
        // ArrayBufferWriter cannot shrink its count; copy what stays to a fresh start.
        var kept = _output.WrittenSpan[..mark].ToArray();
        _output.ResetWrittenCount();
        _output.Write(kept);
    }

    /// <summary>A JSON number as JavaScript writes the double it reads as: integers of up to 15 digits are already so.</summary>
    private void CopyNumber(ReadOnlySpan<byte> token)
    {
        var digits = token[0] == (byte)'-' ? token[1..] : token;
        if (digits.Length <= 15 && !digits.ContainsAnyExcept("0123456789"u8) && !(token[0] == (byte)'-' && digits is [(byte)'0']))
        {
            Write(token);
            return;
        }

        WriteNumber(Utf8JsonToJsValue.ReadNumber(token));
    }

    private void WriteNumber(double number)
    {
        if (!double.IsFinite(number))
        {
            Write("null"u8);
            return;
        }

        // Integral doubles up to 2^53 print as integers in JavaScript; -0 prints as 0.
        if (Math.Abs(number) < 9007199254740992d && number == Math.Floor(number))
        {
            var span = _output.GetSpan(24);
            Utf8Formatter.TryFormat((long)number, span, out var written);
            _output.Advance(written);
            return;
        }

        var text = TypeConverter.ToString(JsNumber.Create(number));
        var target = _output.GetSpan(text.Length);
        _output.Advance(Encoding.ASCII.GetBytes(text, target));
    }

    private void WriteName(string name, ref bool first)
    {
        if (!first)
        {
            Write(","u8);
        }

        first = false;
        WriteString(name);
        Write(":"u8);
    }

    /// <summary>A string quoted as JSON.stringify quotes it: short escapes, \u00XX for other controls, lone surrogates as \uXXXX.</summary>
    private void WriteString(string text)
    {
        Write("\""u8);
        var rest = text.AsSpan();
        while (!rest.IsEmpty)
        {
            var special = rest.IndexOfAny(Escaped);
            var run = special < 0 ? rest : rest[..special];
            if (!run.IsEmpty)
            {
                var target = _output.GetSpan(Encoding.UTF8.GetMaxByteCount(run.Length));
                _output.Advance(Encoding.UTF8.GetBytes(run, target));
            }

            if (special < 0)
            {
                break;
            }

            var c = rest[special];
            if (char.IsHighSurrogate(c) && special + 1 < rest.Length && char.IsLowSurrogate(rest[special + 1]))
            {
                var target = _output.GetSpan(4);
                _output.Advance(Encoding.UTF8.GetBytes(rest.Slice(special, 2), target));
                rest = rest[(special + 2)..];
                continue;
            }

            WriteEscape(c);
            rest = rest[(special + 1)..];
        }

        Write("\""u8);
    }

    private void WriteEscape(char c)
    {
        switch (c)
        {
            case '"':
                Write("\\\""u8);
                break;
            case '\\':
                Write("\\\\"u8);
                break;
            case '\b':
                Write("\\b"u8);
                break;
            case '\f':
                Write("\\f"u8);
                break;
            case '\n':
                Write("\\n"u8);
                break;
            case '\r':
                Write("\\r"u8);
                break;
            case '\t':
                Write("\\t"u8);
                break;
            default:
                var span = _output.GetSpan(6);
                "\\u"u8.CopyTo(span);
                ((int)c).TryFormat(span[2..], out _, "x4", System.Globalization.CultureInfo.InvariantCulture);
                _output.Advance(6);
                break;
        }
    }

    private void Write(ReadOnlySpan<byte> bytes) => _output.Write(bytes);
}
