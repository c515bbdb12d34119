using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Ingest.Documents.Json;

/// <summary>
/// A one-pass syntax check for the common case: a body that is one well-formed JSON object. It
/// answers only "certainly valid" or "look closer". <c>Utf8JsonReader</c> stays the judge: when
/// this says false, the caller runs the reader, which accepts the body or names the exact
/// problem, so error messages do not change. Being stricter than the reader is therefore safe
/// (anything unusual, such as a surrogate escape or nesting near the limit, takes the slow path);
/// accepting something the reader refuses would not be, and the differential tests hold it to that.
/// The reader tokenises every value for a caller that only wants a yes; this skips string contents
/// sixteen bytes at a time and keeps no token state, which makes the check several times cheaper.
/// It does not check UTF-8: callers run <see cref="Utf8Validation"/> over the whole body first, as
/// they must for the reader too.
/// Used by the store's batch validation and the server's message mapper.
/// </summary>
public static class JsonObjectFastCheck
{
    // The deepest nesting tracked on the stack; deeper bodies take the reader's path.
    private const int MaxTrackedDepth = 256;

    /// <summary>
    /// True when <paramref name="json"/> is certainly one JSON object, optionally surrounded by
    /// whitespace, that <c>Utf8JsonReader</c> with comments disallowed and <paramref name="maxDepth"/>
    /// would read to its end without error. False means "not proven": run the reader.
    /// </summary>
    public static bool IsCertainlyValidObject(ReadOnlySpan<byte> json, int maxDepth)
    {
        // Stricter than the reader by one level, so the limit's exact edge is the reader's call.
        var depthLimit = Math.Min(maxDepth - 1, MaxTrackedDepth);
        var i = SkipWhitespace(json, 0);
        if (depthLimit < 1 || i >= json.Length || json[i] != (byte)'{')
        {
            return false;
        }

        // Per open level: true for an object, false for an array.
        Span<bool> isObject = stackalloc bool[depthLimit];
        isObject[0] = true;
        var depth = 1;
        i++;
        var expect = Expect.FirstMemberOrClose;
        while (true)
        {
            i = SkipWhitespace(json, i);
            if (i >= json.Length)
            {
                return false;
            }

            var c = json[i];
            var inObject = isObject[depth - 1];
            if (expect == Expect.CommaOrClose || (expect == Expect.FirstMemberOrClose && c == (inObject ? (byte)'}' : (byte)']')))
            {
                if (c == (byte)',' && expect == Expect.CommaOrClose)
                {
                    i++;
                    expect = Expect.Member;
                    continue;
                }

                if (c != (inObject ? (byte)'}' : (byte)']'))
                {
                    return false;
                }

                i++;
                if (--depth == 0)
                {
                    return SkipWhitespace(json, i) == json.Length;
                }

                expect = Expect.CommaOrClose;
                continue;
            }

            if (inObject)
            {
                if (c != (byte)'"' || (i = SkipString(json, i + 1)) < 0)
                {
                    return false;
                }

                i = SkipWhitespace(json, i);
                if (i >= json.Length || json[i] != (byte)':')
                {
                    return false;
                }

                i = SkipWhitespace(json, i + 1);
                if (i >= json.Length)
                {
                    return false;
                }

                c = json[i];
            }

            if (c == (byte)'{' || c == (byte)'[')
            {
                if (depth >= depthLimit)
                {
                    return false;
                }

                isObject[depth++] = c == (byte)'{';
                i++;
                expect = Expect.FirstMemberOrClose;
                continue;
            }

            i = c switch
            {
                (byte)'"' => SkipString(json, i + 1),
                (byte)'t' => SkipLiteral(json, i, "true"u8),
                (byte)'f' => SkipLiteral(json, i, "false"u8),
                (byte)'n' => SkipLiteral(json, i, "null"u8),
                _ => SkipNumber(json, i),
            };
            if (i < 0)
            {
                return false;
            }

            expect = Expect.CommaOrClose;
        }
    }

    private enum Expect : byte
    {
        // Just inside '{' or '[': a member, or the close of an empty container.
        FirstMemberOrClose,

        // After a comma: a member (no trailing commas).
        Member,

        // After a value: a comma or the container's close.
        CommaOrClose,
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int SkipWhitespace(ReadOnlySpan<byte> json, int i)
    {
        while ((uint)i < (uint)json.Length)
        {
            var c = json[i];
            if (c != (byte)' ' && c != (byte)'\n' && c != (byte)'\r' && c != (byte)'\t')
            {
                break;
            }

            i++;
        }

        return i;
    }

    // i is just past the opening quote; returns just past the closing quote, or -1.
    private static int SkipString(ReadOnlySpan<byte> json, int i)
    {
        while (true)
        {
            // Sixteen bytes at a time: most names and values in documents end within the first vector.
            if (Vector128.IsHardwareAccelerated && i + Vector128<byte>.Count <= json.Length)
            {
                var stops = StringStopMask(Vector128.Create(json.Slice(i, Vector128<byte>.Count)));
                if (stops == 0)
                {
                    i += Vector128<byte>.Count;
                    continue;
                }

                i += BitOperations.TrailingZeroCount(stops);
            }
            else
            {
                while (i < json.Length && !IsStringStop(json[i]))
                {
                    i++;
                }

                if (i >= json.Length)
                {
                    return -1;
                }
            }

            var c = json[i];
            if (c == (byte)'"')
            {
                return i + 1;
            }

            if (c != (byte)'\\' || i + 1 >= json.Length)
            {
                // An unescaped control character, or a backslash at the very end.
                return -1;
            }

            switch (json[i + 1])
            {
                case (byte)'"' or (byte)'\\' or (byte)'/' or (byte)'b' or (byte)'f' or (byte)'n' or (byte)'r' or (byte)'t':
                    i += 2;
                    break;
                case (byte)'u':
                    if (i + 6 > json.Length)
                    {
                        return -1;
                    }

                    var hex = json.Slice(i + 2, 4);
                    if (!IsHex(hex[0]) || !IsHex(hex[1]) || !IsHex(hex[2]) || !IsHex(hex[3]))
                    {
                        return -1;
                    }

                    // Surrogate escapes (\uD800-\uDFFF) are left to the reader's judgement.
                    if ((hex[0] | 0x20) == (byte)'d' && hex[1] >= (byte)'8')
                    {
                        return -1;
                    }

                    i += 6;
                    break;
                default:
                    return -1;
            }
        }
    }

    // A bit per byte that ends a string's plain run: '"', '\\' or a control character.
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static uint StringStopMask(Vector128<byte> bytes)
    {
        var stops = Vector128.Equals(bytes, Vector128.Create((byte)'"'))
            | Vector128.Equals(bytes, Vector128.Create((byte)'\\'))
            | Vector128.LessThan(bytes, Vector128.Create((byte)0x20));
        return stops.ExtractMostSignificantBits();
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsStringStop(byte c) => c < 0x20 || c == (byte)'"' || c == (byte)'\\';

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsHex(byte c) => (uint)(c - '0') <= 9 || (uint)((c | 0x20) - 'a') <= 5;

    // A literal must be followed by a delimiter (or the end, which the caller refuses anyway).
    private static int SkipLiteral(ReadOnlySpan<byte> json, int i, ReadOnlySpan<byte> literal)
    {
        if (!json[i..].StartsWith(literal))
        {
            return -1;
        }

        i += literal.Length;
        return i < json.Length && !IsDelimiter(json[i]) ? -1 : i;
    }

    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? followed by a delimiter.
    private static int SkipNumber(ReadOnlySpan<byte> json, int i)
    {
        if (json[i] == (byte)'-')
        {
            i++;
        }

        if (i >= json.Length)
        {
            return -1;
        }

        if (json[i] == (byte)'0')
        {
            i++;
        }
        else if (IsDigit19(json[i]))
        {
            i = SkipDigits(json, i + 1);
        }
        else
        {
            return -1;
        }

        if (i < json.Length && json[i] == (byte)'.')
        {
            var start = i + 1;
            i = SkipDigits(json, start);
            if (i == start)
            {
                return -1;
            }
        }

        if (i < json.Length && (json[i] | 0x20) == (byte)'e')
        {
            i++;
            if (i < json.Length && (json[i] == (byte)'+' || json[i] == (byte)'-'))
            {
                i++;
            }

            var start = i;
            i = SkipDigits(json, start);
            if (i == start)
            {
                return -1;
            }
        }

        return i < json.Length && !IsDelimiter(json[i]) ? -1 : i;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int SkipDigits(ReadOnlySpan<byte> json, int i)
    {
        while (i < json.Length && (uint)(json[i] - '0') <= 9)
        {
            i++;
        }

        return i;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsDigit19(byte c) => (uint)(c - '1') <= 8;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static bool IsDelimiter(byte c) =>
        c is (byte)',' or (byte)'}' or (byte)']' or (byte)' ' or (byte)'\n' or (byte)'\r' or (byte)'\t';
}
