using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;

namespace Ingest.Server.Scripting;

/// <summary>
/// Finds the top-level properties of a checked JSON object 64 bytes at a time, for
/// <see cref="Utf8JsonToJsValue.Index"/>: each block's quotes, backslashes, brackets, commas and
/// colons become bit masks; escaped bytes are found from the backslash mask with simdjson's carry
/// trick (an odd run of backslashes escapes the byte after it), and the bits inside strings are
/// cleared with a prefix XOR of the mask of unescaped quotes. Only the bits that matter at the
/// current depth are visited: at the top level every comma, colon and bracket, deeper only brackets.
/// A transform reads a few fields of a ~1 KiB document whose nested values (orders, tags,
/// preferences) are most of its bytes; the scanner that jumped from quote to quote through every
/// nested string spent a sixth of the writer's step there (perf of the source transform micro
/// benchmark, issue 30). Undefined on malformed input.
/// </summary>
internal static class TopLevelPropertyScanner
{
    private const int Block = 64;
    private const ulong OddBits = 0xAAAA_AAAA_AAAA_AAAA;

    /// <summary>
    /// Writes the object's top-level properties (names and values as byte ranges, in order, repeats
    /// included) into <paramref name="entries"/>, growing it as needed; their count, or -1 if a
    /// name is escaped (its bytes are not the name: the object is then read whole).
    /// </summary>
    /// <param name="json">Checked JSON holding the object.</param>
    /// <param name="open">The index of the object's <c>{</c>.</param>
    /// <param name="entries">Where the entries go; replaced by a larger array when full.</param>
    public static int TryIndex(ReadOnlySpan<byte> json, int open, ref LazyJsonEntry[] entries)
    {
        Span<byte> tail = stackalloc byte[Block];
        ref var start = ref MemoryMarshal.GetReference(json);
        var state = new State { AfterSeparator = -1, ValueStart = -1 };
        ulong inStringCarry = 0;
        ulong nextIsEscaped = 0;
        for (var at = open; at < json.Length; at += Block)
        {
            Masks masks;
            if (at + Block <= json.Length)
            {
                masks = Classify(ref Unsafe.Add(ref start, at));
            }
            else
            {
                // The last, short block, padded with spaces (whitespace changes nothing).
                tail.Fill((byte)' ');
                json[at..].CopyTo(tail);
                masks = Classify(ref MemoryMarshal.GetReference(tail));
            }

            var escaped = Escaped(masks.Backslashes, ref nextIsEscaped);

            // Bit i is set from an opening quote up to (not including) its closing one.
            var inString = PrefixXor(masks.Quotes & ~escaped) ^ inStringCarry;
            inStringCarry = (ulong)((long)inString >> 63);
            var brackets = masks.Brackets & ~inString;
            var all = brackets | (masks.Separators & ~inString);
            var remaining = ulong.MaxValue;
            while (true)
            {
                var candidates = (state.Depth == 1 ? all : brackets) & remaining;
                if (candidates == 0)
                {
                    break;
                }

                var bit = BitOperations.TrailingZeroCount(candidates);
                remaining = bit == 63 ? 0 : ulong.MaxValue << (bit + 1);
                if (Visit(json, at + bit, ref state, ref entries))
                {
                    return state.Count;
                }

                if (state.Count < 0)
                {
                    return -1;
                }
            }
        }

        // Well-formed JSON closes the object before its end.
        throw new InvalidOperationException("The object does not close: the JSON was not checked.");
    }

    // One structural byte outside strings; true once the object has closed.
    private static bool Visit(ReadOnlySpan<byte> json, int at, ref State state, ref LazyJsonEntry[] entries)
    {
        switch (json[at])
        {
            case (byte)'{':
            case (byte)'[':
                if (++state.Depth == 1)
                {
                    state.AfterSeparator = at + 1;
                }

                return false;
            case (byte)'}':
            case (byte)']':
                if (--state.Depth == 0)
                {
                    if (state.ValueStart >= 0)
                    {
                        Add(json, at, ref state, ref entries);
                    }

                    return true;
                }

                return false;
            case (byte)':':
                // The name is the string between the last separator and the colon (no escapes in it).
                var nameOpen = CheckedJsonScanner.SkipWhitespace(json, state.AfterSeparator);
                var nameClose = TrimEnd(json, at) - 1;
                state.NameStart = nameOpen + 1;
                state.NameLength = nameClose - nameOpen - 1;
                if (json.Slice(state.NameStart, state.NameLength).Contains((byte)'\\'))
                {
                    state.Count = -1;
                    return false;
                }

                state.ValueStart = CheckedJsonScanner.SkipWhitespace(json, at + 1);
                return false;
            default: // ','
                Add(json, at, ref state, ref entries);
                state.AfterSeparator = at + 1;
                return false;
        }
    }

    // The property whose value ends before the separator at `at`.
    private static void Add(ReadOnlySpan<byte> json, int at, ref State state, ref LazyJsonEntry[] entries)
    {
        if (state.Count == entries.Length)
        {
            Array.Resize(ref entries, entries.Length * 2);
        }

        entries[state.Count++] = new LazyJsonEntry(state.NameStart, state.NameLength, state.ValueStart, TrimEnd(json, at));
        state.ValueStart = -1;
    }

    // The index after the last non-whitespace byte before `end`.
    private static int TrimEnd(ReadOnlySpan<byte> json, int end)
    {
        while (json[end - 1] is (byte)' ' or (byte)'\t' or (byte)'\r' or (byte)'\n')
        {
            end--;
        }

        return end;
    }

    // The bytes escaped by a backslash (the byte after an odd run of them), carrying a run that ends a
    // block into the next (simdjson's json_escape_scanner: the subtraction's carries find where each
    // run starting on an even or odd bit ends).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong Escaped(ulong backslashes, ref ulong nextIsEscaped)
    {
        if (backslashes == 0)
        {
            var carried = nextIsEscaped;
            nextIsEscaped = 0;
            return carried;
        }

        var potentialEscape = backslashes & ~nextIsEscaped;
        var maybeEscaped = potentialEscape << 1;
        var escapeAndTerminalCode = ((maybeEscaped | OddBits) - potentialEscape) ^ OddBits;
        var escaped = escapeAndTerminalCode ^ (backslashes | nextIsEscaped);
        var escape = escapeAndTerminalCode & backslashes;
        nextIsEscaped = escape >> 63;
        return escaped;
    }

    // Bit i of the result is the XOR of bits 0..i: set inside a string (its opening quote included).
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static ulong PrefixXor(ulong bits)
    {
        bits ^= bits << 1;
        bits ^= bits << 2;
        bits ^= bits << 4;
        bits ^= bits << 8;
        bits ^= bits << 16;
        bits ^= bits << 32;
        return bits;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Masks Classify(ref byte block)
    {
        if (Vector512.IsHardwareAccelerated)
        {
            return Classify(Vector512.LoadUnsafe(ref block));
        }

        var result = default(Masks);
        for (var part = 0; part < Block / Vector128<byte>.Count; part++)
        {
            var bytes = Vector128.LoadUnsafe(ref block, (nuint)(part * Vector128<byte>.Count));
            var shift = part * Vector128<byte>.Count;
            result.Quotes |= (ulong)Vector128.Equals(bytes, Vector128.Create((byte)'"')).ExtractMostSignificantBits() << shift;
            result.Backslashes |= (ulong)Vector128.Equals(bytes, Vector128.Create((byte)'\\')).ExtractMostSignificantBits() << shift;

            // '[' (0x5B) and ']' (0x5D) are '{' (0x7B) and '}' (0x7D) without the 0x20 bit.
            var folded = bytes & Vector128.Create((byte)0xDF);
            result.Brackets |= (ulong)(Vector128.Equals(folded, Vector128.Create((byte)'[')) | Vector128.Equals(folded, Vector128.Create((byte)']')))
                .ExtractMostSignificantBits() << shift;
            result.Separators |= (ulong)(Vector128.Equals(bytes, Vector128.Create((byte)',')) | Vector128.Equals(bytes, Vector128.Create((byte)':')))
                .ExtractMostSignificantBits() << shift;
        }

        return result;
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static Masks Classify(Vector512<byte> bytes)
    {
        var folded = bytes & Vector512.Create((byte)0xDF);
        return new Masks
        {
            Quotes = Vector512.Equals(bytes, Vector512.Create((byte)'"')).ExtractMostSignificantBits(),
            Backslashes = Vector512.Equals(bytes, Vector512.Create((byte)'\\')).ExtractMostSignificantBits(),
            Brackets = (Vector512.Equals(folded, Vector512.Create((byte)'[')) | Vector512.Equals(folded, Vector512.Create((byte)']'))).ExtractMostSignificantBits(),
            Separators = (Vector512.Equals(bytes, Vector512.Create((byte)',')) | Vector512.Equals(bytes, Vector512.Create((byte)':'))).ExtractMostSignificantBits(),
        };
    }

    private struct Masks
    {
        public ulong Quotes;
        public ulong Backslashes;
        public ulong Brackets;
        public ulong Separators;
    }

    // Where the scan is: the depth (1 inside the object), the entries so far, and the property being read.
    private struct State
    {
        public int Depth;
        public int Count;
        public int AfterSeparator;
        public int NameStart;
        public int NameLength;
        public int ValueStart;
    }
}
