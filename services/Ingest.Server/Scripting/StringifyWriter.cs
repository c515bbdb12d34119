using System.Buffers;
using System.Buffers.Text;
using System.Text;
using Jint.Native;
using Jint.Runtime;

namespace Ingest.Server.Scripting;

/// <summary>
/// Numbers and strings as UTF-8, spelled as <c>JSON.stringify</c> spells them, for <see cref="Utf8JsonFromJsValue"/>
/// and <see cref="LazyJsonCopier"/>.
/// </summary>
internal static class StringifyWriter
{
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

    public static void WriteNumber(ArrayBufferWriter<byte> output, double number)
    {
        if (!double.IsFinite(number))
        {
            output.Write("null"u8);
            return;
        }

        // Integral doubles up to 2^53 print as integers in JavaScript; -0 prints as 0.
        if (Math.Abs(number) < 9007199254740992d && number == Math.Floor(number))
        {
            var span = output.GetSpan(24);
            Utf8Formatter.TryFormat((long)number, span, out var written);
            output.Advance(written);
            return;
        }

        var text = TypeConverter.ToString(JsNumber.Create(number));
        var target = output.GetSpan(text.Length);
        output.Advance(Encoding.ASCII.GetBytes(text, target));
    }

    /// <summary>A string quoted as JSON.stringify quotes it: short escapes, \u00XX for other controls, lone surrogates as \uXXXX.</summary>
    public static void WriteString(ArrayBufferWriter<byte> output, string text)
    {
        output.Write("\""u8);
        var rest = text.AsSpan();
        while (!rest.IsEmpty)
        {
            var special = rest.IndexOfAny(Escaped);
            var run = special < 0 ? rest : rest[..special];
            if (!run.IsEmpty)
            {
                var target = output.GetSpan(Encoding.UTF8.GetMaxByteCount(run.Length));
                output.Advance(Encoding.UTF8.GetBytes(run, target));
            }

            if (special < 0)
            {
                break;
            }

            var c = rest[special];
            if (char.IsHighSurrogate(c) && special + 1 < rest.Length && char.IsLowSurrogate(rest[special + 1]))
            {
                var target = output.GetSpan(4);
                output.Advance(Encoding.UTF8.GetBytes(rest.Slice(special, 2), target));
                rest = rest[(special + 2)..];
                continue;
            }

            WriteEscape(output, c);
            rest = rest[(special + 1)..];
        }

        output.Write("\""u8);
    }

    private static void WriteEscape(ArrayBufferWriter<byte> output, char c)
    {
        switch (c)
        {
            case '"':
                output.Write("\\\""u8);
                break;
            case '\\':
                output.Write("\\\\"u8);
                break;
            case '\b':
                output.Write("\\b"u8);
                break;
            case '\f':
                output.Write("\\f"u8);
                break;
            case '\n':
                output.Write("\\n"u8);
                break;
            case '\r':
                output.Write("\\r"u8);
                break;
            case '\t':
                output.Write("\\t"u8);
                break;
            default:
                var span = output.GetSpan(6);
                "\\u"u8.CopyTo(span);
                ((int)c).TryFormat(span[2..], out _, "x4", System.Globalization.CultureInfo.InvariantCulture);
                output.Advance(6);
                break;
        }
    }
}
