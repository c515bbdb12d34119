using System.Runtime.CompilerServices;
using System.Text;

namespace Ingest.Documents.Ids;

/// <summary>
/// Lookup keys for case-insensitive names (document ids, collection names): UTF-8 of the name
/// with every character folded as lower(upper(c)) in the invariant culture, so "Σ", "σ" and the
/// final "ς" meet, "ẞ" meets "ß", and "I"/"i" meet while Turkish "ı" and "İ" stay themselves
/// (invariant casing has no Turkish rules). A name that is all ASCII, by far the common case,
/// takes a vectorized path: one scan for chars above 127 and one lower-casing copy.
/// Folding is simple (one character to one character): "SS" and "ß" are different names.
/// </summary>
public static class IdKey
{
    /// <summary>Folding can make a character's UTF-8 longer (U+023A, 2 bytes, folds to U+2C65, 3 bytes): at most 3 bytes per UTF-16 char.</summary>
    public static int MaxKeyBytes(int chars) => chars * 3;

    /// <summary>Writes the key of <paramref name="name"/> into <paramref name="destination"/> and returns its length.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int Fold(ReadOnlySpan<char> name, Span<byte> destination)
    {
        if (Ascii.IsValid(name))
        {
            Ascii.ToLower(name, destination, out var written);
            return written;
        }

        return FoldUnicode(name, destination);
    }

    /// <summary>The key as a string (collection names key dictionaries and tree names).</summary>
    public static string FoldToString(string name)
    {
        if (Ascii.IsValid(name))
        {
            return name.ToLowerInvariant();
        }

        var builder = new StringBuilder(name.Length);
        foreach (var rune in name.EnumerateRunes())
        {
            builder.Append(Rune.ToLowerInvariant(Rune.ToUpperInvariant(rune)).ToString());
        }

        return builder.ToString();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int FoldUnicode(ReadOnlySpan<char> name, Span<byte> destination)
    {
        var written = 0;
        foreach (var rune in name.EnumerateRunes())
        {
            written += Rune.ToLowerInvariant(Rune.ToUpperInvariant(rune)).EncodeToUtf8(destination[written..]);
        }

        return written;
    }

    /// <summary>Whether <paramref name="name"/> is well-formed UTF-16 (no lone surrogates), so it round-trips through UTF-8.</summary>
    public static bool IsWellFormed(ReadOnlySpan<char> name)
    {
        for (var i = 0; i < name.Length; i++)
        {
            var c = name[i];
            if (!char.IsSurrogate(c))
            {
                continue;
            }

            if (!char.IsHighSurrogate(c) || i + 1 >= name.Length || !char.IsLowSurrogate(name[i + 1]))
            {
                return false;
            }

            i++;
        }

        return true;
    }
}
