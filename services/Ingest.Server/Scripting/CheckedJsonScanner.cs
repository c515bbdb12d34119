using System.Buffers;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace Ingest.Server.Scripting;

/// <summary>
/// Finds where values end in JSON already known to be well-formed (checked once by the reader, or
/// a stored document): a vectorized search for quotes and brackets instead of the reader's full
/// tokenizing, which was the largest part of reading a document for a transform. Undefined on
/// malformed input. The distances searched are mostly a few bytes (a property name, a number), so
/// each search first looks at the next sixteen bytes inline and only then starts a full search.
/// </summary>
internal static class CheckedJsonScanner
{
    private static readonly SearchValues<byte> Structure = SearchValues.Create("\"{}[]"u8);
    private static readonly SearchValues<byte> StringEnd = SearchValues.Create("\"\\"u8);
    private static readonly SearchValues<byte> ScalarEnd = SearchValues.Create(",}] \t\r\n"u8);

    /// <summary>The index after the whitespace at <paramref name="index"/>.</summary>
    public static int SkipWhitespace(ReadOnlySpan<byte> json, int index)
    {
        // Compact JSON has none: one byte decides.
        if ((uint)index < (uint)json.Length && json[index] is not ((byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n'))
        {
            return index;
        }

        var rest = json[index..].IndexOfAnyExcept(" \t\r\n"u8);
        return rest < 0 ? json.Length : index + rest;
    }

    /// <summary>The index after the value that starts at <paramref name="index"/>.</summary>
    public static int SkipValue(ReadOnlySpan<byte> json, int index)
    {
        switch (json[index])
        {
            case (byte)'"':
                return SkipString(json, index);
            case (byte)'{':
            case (byte)'[':
                var depth = 0;
                var at = index;
                while (true)
                {
                    at = NextStructure(json, at);
                    switch (json[at])
                    {
                        case (byte)'"':
                            at = SkipString(json, at);
                            continue;
                        case (byte)'{':
                        case (byte)'[':
                            depth++;
                            break;
                        default:
                            depth--;
                            break;
                    }

                    at++;
                    if (depth == 0)
                    {
                        return at;
                    }
                }

            default:
                var end = json[index..].IndexOfAny(ScalarEnd);
                return end < 0 ? json.Length : index + end;
        }
    }

    // The next '"', '{', '}', '[' or ']' at or after at (one exists in well-formed JSON).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int NextStructure(ReadOnlySpan<byte> json, int at)
    {
        if (Vector128.IsHardwareAccelerated && at + Vector128<byte>.Count <= json.Length)
        {
            var bytes = Vector128.Create(json.Slice(at, Vector128<byte>.Count));
            var hits = Vector128.Equals(bytes, Vector128.Create((byte)'"'))
                | Vector128.Equals(bytes, Vector128.Create((byte)'{'))
                | Vector128.Equals(bytes, Vector128.Create((byte)'}'))
                | Vector128.Equals(bytes, Vector128.Create((byte)'['))
                | Vector128.Equals(bytes, Vector128.Create((byte)']'));
            var mask = hits.ExtractMostSignificantBits();
            if (mask != 0)
            {
                return at + BitOperations.TrailingZeroCount(mask);
            }

            at += Vector128<byte>.Count;
        }

        return at + json[at..].IndexOfAny(Structure);
    }

    // The next '"' or '\' at or after at (one exists in well-formed JSON).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static int NextStringEnd(ReadOnlySpan<byte> json, int at)
    {
        if (Vector128.IsHardwareAccelerated && at + Vector128<byte>.Count <= json.Length)
        {
            var bytes = Vector128.Create(json.Slice(at, Vector128<byte>.Count));
            var hits = Vector128.Equals(bytes, Vector128.Create((byte)'"')) | Vector128.Equals(bytes, Vector128.Create((byte)'\\'));
            var mask = hits.ExtractMostSignificantBits();
            if (mask != 0)
            {
                return at + BitOperations.TrailingZeroCount(mask);
            }

            at += Vector128<byte>.Count;
        }

        return at + json[at..].IndexOfAny(StringEnd);
    }

    /// <summary>The index after the string whose opening quote is at <paramref name="index"/>.</summary>
    public static int SkipString(ReadOnlySpan<byte> json, int index)
    {
        var at = index + 1;
        while (true)
        {
            at = NextStringEnd(json, at);
            if (json[at] == (byte)'"')
            {
                return at + 1;
            }

            // An escape: the next byte is never the closing quote (\uXXXX is followed by hex digits).
            at += 2;
        }
    }
}
