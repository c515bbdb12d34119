using System.Globalization;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Json;
using Jint;
using Jint.Native;
using Jint.Runtime;

namespace Ingest.Server.Scripting;

/// <summary>
/// What <c>JSON.parse</c> gives for a JSON document, made from its UTF-8 bytes as the script reads
/// it. <see cref="Parse"/> reads a document's top level with System.Text.Json's reader, skipping
/// through (and so checking) everything nested: a malformed document is refused before the script
/// runs. Each string, object or array in it is made only when the script reads that property, and
/// a nested object is a <see cref="LazyJsonObject"/> whose own top level is read on first touch. A transform that reads a few fields of a
/// document no longer builds a value for every other one (a profile of the <c>etl</c> benchmark
/// showed building the whole tree to be most of a transform's cost). Arrays are made whole when
/// read (their objects stay lazy). A transform sees document after document of the same shape, so
/// property names are decoded once and then found by their bytes (<see cref="Utf8PropertyNames"/>).
/// One per engine, used by one caller at a time (the script host's lock) and by the objects it made.
/// <para>
/// With <paramref name="borrowsBytes"/>, the bytes are lent for one call only (a source's message body is
/// a pooled array that goes back to the pool once its batch is written): what was made from them
/// refuses to read them after <see cref="EndCall"/>, with a script error, instead of reading whatever
/// message the array holds by then. A script may keep values it read (strings, numbers) or made.
/// </para>
/// </summary>
internal sealed class Utf8JsonToJsValue(Engine engine, bool borrowsBytes = false)
{
    private const string KeptPastItsCall =
        "a message's body can be read only during its own transform call, and this value comes from an earlier message's "
        + "body (its bytes are reused once its batch is written): copy what the script keeps, for example with "
        + "JSON.parse(JSON.stringify(value)).";

    /// <summary>Deeper documents are refused (the reader's default is 64, too few for some documents).</summary>
    public const int MaxDepth = 1_000;

    private static readonly JsonReaderOptions ReaderOptions = new() { MaxDepth = MaxDepth };

    private readonly Utf8PropertyNames _names = new();
    private readonly List<List<JsValue>> _arrays = [];
    private LazyJsonEntry[] _entries = new LazyJsonEntry[32];
    private int _arrayDepth;
    private int _call;

    /// <summary>The call the values made now belong to.</summary>
    internal int Call => _call;

    /// <summary>Ends the call: bytes lent for it may be reused from now on.</summary>
    public void EndCall() => _call++;

    /// <summary>Throws a script TypeError when the bytes of a value made during <paramref name="call"/> may have been reused.</summary>
    internal void ThrowIfLentBytesReturned(int call)
    {
        if (borrowsBytes && call != _call)
        {
            throw new JavaScriptException(engine.Intrinsics.TypeError, KeptPastItsCall);
        }
    }

    /// <summary>The document as a JavaScript value.</summary>
    /// <param name="utf8">The document; it must stay unchanged as long as the engine may hold the value.</param>
    /// <exception cref="JsonException">The bytes are not one JSON value.</exception>
    public JsValue Parse(ReadOnlyMemory<byte> utf8)
    {
        var reader = new Utf8JsonReader(utf8.Span, ReaderOptions);
        if (!reader.Read())
        {
            throw new JsonException("The document is empty, not JSON.");
        }

        // The whole document is checked in one pass (Skip reads through a nested value, so the
        // reader refuses what it always refused, with the same message); what the script then reads
        // of it is made from the checked bytes, as for a stored document.
        var start = (int)reader.TokenStartIndex;
        reader.Skip();
        var end = (int)reader.BytesConsumed;

        // The reader itself refuses anything after the value but whitespace.
        return reader.Read() ? throw new JsonException("The document holds more than one JSON value.") : Materialize(utf8[start..end]);
    }

    /// <summary>
    /// Whether the bytes are one JSON value exactly as <see cref="Parse"/> accepts it (depth, trailing
    /// whitespace only): a body checked here can be read with <see cref="ParseStored"/>, lazily. The
    /// Kafka and RabbitMQ sources check on their consume thread, so the batch writer, which runs the
    /// transform, no longer tokenizes the whole body (as the header-driven mapping does there too).
    /// It does not check UTF-8 (strings are not decoded): the caller does.
    /// </summary>
    public static bool IsOneValue(ReadOnlySpan<byte> utf8)
    {
        // Most bodies are objects: the store's one-pass proof skips string contents and keeps no token
        // state (about 1 us of the consume thread's ~3 per ~1 KiB body went to the reader here). What
        // it proves (an object the reader reads to its end within MaxDepth) the reader accepts; what it
        // cannot prove, the reader decides, so the answer is the reader's either way.
        if (Ingest.Documents.Json.JsonObjectFastCheck.IsCertainlyValidObject(utf8, MaxDepth))
        {
            return true;
        }

        var reader = new Utf8JsonReader(utf8, ReaderOptions);
        try
        {
            if (!reader.Read())
            {
                return false;
            }

            // Skip reads through a nested value; on a scalar it does nothing. The reader itself
            // refuses anything after the value but whitespace.
            reader.Skip();
            return !reader.Read();
        }
        catch (JsonException)
        {
            return false;
        }
    }

    /// <summary>
    /// A document the store checked when it was written (one JSON object): not checked again, read
    /// only as far as the script touches it (on its first touch, its top level). Anything but an
    /// object goes through <see cref="Parse"/>.
    /// </summary>
    /// <param name="utf8">The document; it must stay unchanged as long as the engine may hold the value.</param>
    public JsValue ParseStored(ReadOnlyMemory<byte> utf8)
    {
        var first = utf8.Span.IndexOfAnyExcept(" \t\r\n"u8);
        return first >= 0 && utf8.Span[first] == (byte)'{' ? new LazyJsonObject(engine, this, utf8) : Parse(utf8);
    }

    /// <summary>A checked JSON value (no surrounding whitespace) as a JavaScript value; an object stays unread.</summary>
    internal JsValue Materialize(ReadOnlyMemory<byte> json)
    {
        var span = json.Span;
        switch (span[0])
        {
            case (byte)'{':
                return new LazyJsonObject(engine, this, json);
            case (byte)'"':
                return JsString.Create(ReadString(span));
            default:
                var reader = new Utf8JsonReader(span, ReaderOptions);
                reader.Read();
                return reader.TokenType == JsonTokenType.StartArray ? ReadArray(ref reader, json) : ReadScalar(ref reader);
        }
    }

    /// <summary>
    /// Where each top-level property of a checked object is (names and values as byte ranges, in the
    /// document's order, repeats included), for reading them by name; null if a name is escaped (its
    /// bytes are not the name: the object is then read whole).
    /// </summary>
    internal LazyJsonEntry[]? Index(ReadOnlySpan<byte> json)
    {
        var found = TopLevelPropertyScanner.TryIndex(json, json.IndexOf((byte)'{'), ref _entries);
        return found switch
        {
            < 0 => null,
            0 => [],
            _ => _entries.AsSpan(0, found).ToArray(),
        };
    }

    /// <summary>
    /// The entry whose name is <paramref name="name"/>, the last one if the name repeats (the last
    /// duplicate wins in <c>JSON.parse</c>); -1 if none.
    /// </summary>
    internal int Find(ReadOnlySpan<byte> json, ReadOnlySpan<LazyJsonEntry> entries, string name)
    {
        for (var i = entries.Length - 1; i >= 0; i--)
        {
            var entry = entries[i];
            var bytes = json.Slice(entry.NameStart, entry.NameLength);

            // A name of ASCII only has as many bytes as chars; any other char takes more bytes than chars.
            if (bytes.Length == name.Length)
            {
                if (System.Text.Ascii.Equals(bytes, name))
                {
                    return i;
                }
            }
            else if (bytes.Length > name.Length && bytes.Length <= name.Length * 3 && string.Equals(_names.Get(bytes), name, StringComparison.Ordinal))
            {
                return i;
            }
        }

        return -1;
    }

    /// <summary>An entry's value as a JavaScript value (an object stays unread).</summary>
    internal JsValue ReadValue(ReadOnlyMemory<byte> json, in LazyJsonEntry entry)
    {
        var value = json[entry.ValueStart..entry.ValueEnd];
        return value.Span[0] is (byte)'"' or (byte)'{' or (byte)'[' ? Materialize(value) : ReadScalar(value.Span);
    }

    /// <summary>
    /// Makes an object's properties ordinary ones (its first touch other than a read by name). The
    /// document was checked when it was parsed, so the bytes are scanned for where values end rather
    /// than tokenized again; values already read by name (<paramref name="entries"/>) are kept.
    /// </summary>
    internal void ReadProperties(LazyJsonObject target, LazyJsonEntry[]? entries)
    {
        var json = target.Json.Span;
        if (entries is not null)
        {
            foreach (var entry in entries)
            {
                var name = _names.Get(json.Slice(entry.NameStart, entry.NameLength));
                Define(target, name, json, entry.ValueStart, entry.ValueEnd, entry.Value);
            }

            return;
        }

        var at = CheckedJsonScanner.SkipWhitespace(json, json.IndexOf((byte)'{') + 1);
        while (json[at] == (byte)'"')
        {
            var nameEnd = CheckedJsonScanner.SkipString(json, at);
            var nameBytes = json[(at + 1)..(nameEnd - 1)];
            var name = nameBytes.Contains((byte)'\\') ? Unescape(nameBytes) : _names.Get(nameBytes);
            var start = CheckedJsonScanner.SkipWhitespace(json, CheckedJsonScanner.SkipWhitespace(json, nameEnd) + 1);
            var end = CheckedJsonScanner.SkipValue(json, start);
            Define(target, name, json, start, end, null);
            at = CheckedJsonScanner.SkipWhitespace(json, end);
            if (json[at] == (byte)',')
            {
                at = CheckedJsonScanner.SkipWhitespace(json, at + 1);
            }
        }
    }

    // A data property as JSON.parse defines it ("__proto__" an own one, a repeat replaces the value in its first place).
    private void Define(LazyJsonObject target, string name, ReadOnlySpan<byte> json, int start, int end, JsValue? read)
    {
        if (read is not null)
        {
            target.FastSetDataProperty(name, read);
            return;
        }

        switch (json[start])
        {
            case (byte)'"':
            case (byte)'{':
            case (byte)'[':
                target.FastSetProperty(name, new LazyJsonProperty(this, target.Json[start..end]));
                break;
            default:
                target.FastSetDataProperty(name, ReadScalar(json[start..end]));
                break;
        }
    }

    private JsArray ReadArray(ref Utf8JsonReader reader, ReadOnlyMemory<byte> json)
    {
        if (_arrayDepth == _arrays.Count)
        {
            _arrays.Add([]);
        }

        var items = _arrays[_arrayDepth++];
        try
        {
            while (reader.Read() && reader.TokenType != JsonTokenType.EndArray)
            {
                switch (reader.TokenType)
                {
                    case JsonTokenType.StartObject:
                        var start = (int)reader.TokenStartIndex;
                        reader.Skip();
                        items.Add(new LazyJsonObject(engine, this, json[start..(int)reader.BytesConsumed]));
                        break;
                    case JsonTokenType.StartArray:
                        items.Add(ReadArray(ref reader, json));
                        break;
                    case JsonTokenType.String:
                        items.Add(JsString.Create(reader.ValueIsEscaped ? Unescape(reader.ValueSpan) : Encoding.UTF8.GetString(reader.ValueSpan)));
                        break;
                    default:
                        items.Add(ReadScalar(ref reader));
                        break;
                }
            }

            return new JsArray(engine, CollectionsMarshal.AsSpan(items).ToArray());
        }
        finally
        {
            // Also after a failure: the next array starts with an empty list.
            items.Clear();
            _arrayDepth--;
        }
    }

    // A checked number, true, false or null.
    private static JsValue ReadScalar(ReadOnlySpan<byte> token) => token[0] switch
    {
        (byte)'t' => JsBoolean.True,
        (byte)'f' => JsBoolean.False,
        (byte)'n' => JsValue.Null,
        _ => JsNumber.Create(ReadNumber(token)),
    };

    private static JsValue ReadScalar(ref Utf8JsonReader reader) => reader.TokenType switch
    {
        JsonTokenType.Number => JsNumber.Create(ReadNumber(reader.ValueSpan)),
        JsonTokenType.True => JsBoolean.True,
        JsonTokenType.False => JsBoolean.False,
        JsonTokenType.Null => JsValue.Null,
        _ => throw new JsonException($"Unexpected JSON token {reader.TokenType}."),
    };

    /// <summary>A checked JSON string token (with its quotes) as text.</summary>
    private static string ReadString(ReadOnlySpan<byte> json)
    {
        var inner = json[1..^1];
        return inner.Contains((byte)'\\') ? Unescape(inner) : Encoding.UTF8.GetString(inner);
    }

    /// <summary>
    /// A checked string's escaped content as text. Written here rather than taken from the JSON
    /// reader, which refuses an escaped lone surrogate (<c>"\ud800"</c>) that <c>JSON.parse</c> keeps.
    /// </summary>
    internal static string Unescape(ReadOnlySpan<byte> escaped)
    {
        // Never more chars than bytes: each escape is at least two bytes for one char.
        var rented = System.Buffers.ArrayPool<char>.Shared.Rent(escaped.Length);
        try
        {
            var chars = rented.AsSpan();
            var written = 0;
            while (!escaped.IsEmpty)
            {
                var backslash = escaped.IndexOf((byte)'\\');
                var run = backslash < 0 ? escaped : escaped[..backslash];
                written += Encoding.UTF8.GetChars(run, chars[written..]);
                if (backslash < 0)
                {
                    break;
                }

                var kind = escaped[backslash + 1];
                if (kind == (byte)'u')
                {
                    chars[written++] = (char)int.Parse(escaped.Slice(backslash + 2, 4), NumberStyles.AllowHexSpecifier, CultureInfo.InvariantCulture);
                    escaped = escaped[(backslash + 6)..];
                    continue;
                }

                chars[written++] = kind switch
                {
                    (byte)'b' => '\b',
                    (byte)'f' => '\f',
                    (byte)'n' => '\n',
                    (byte)'r' => '\r',
                    (byte)'t' => '\t',
                    _ => (char)kind, // '"', '\\' and '/': the reader refused any other escape.
                };
                escaped = escaped[(backslash + 2)..];
            }

            return new string(chars[..written]);
        }
        finally
        {
            System.Buffers.ArrayPool<char>.Shared.Return(rented);
        }
    }

    /// <summary>The number as JavaScript reads it: one too large for a double is ±Infinity, as in <c>JSON.parse</c>.</summary>
    internal static double ReadNumber(ReadOnlySpan<byte> token) => double.Parse(token, NumberStyles.Float, CultureInfo.InvariantCulture);
}
