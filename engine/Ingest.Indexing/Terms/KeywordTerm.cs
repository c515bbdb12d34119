namespace Ingest.Indexing.Terms;

/// <summary>
/// A keyword term is the string's UTF-8 bytes, unescaped, lower-cased (<see cref="Utf8CaseFolding"/>) unless the field
/// asks for exact case, and cut at <see cref="TermLimits.MaxTermBytes"/>. Byte order is code point order.
/// <code>
/// +---------------------------------+
/// | UTF-8 bytes, 0..1,024 (no NUL   |
/// | terminator, no length prefix)   |
/// +---------------------------------+
/// "Acme Corp" -> 61 63 6d 65 20 63 6f 72 70
/// </code>
/// The empty string is a term of length 0; null and missing are not terms (see FieldExtraction.NullCount).
/// </summary>
internal static class KeywordTerm
{
    public static void Write(ReadOnlySpan<byte> utf8, bool exactCase, TermBuffer terms)
    {
        if (exactCase)
        {
            terms.Add(utf8[..TermLimits.CutLength(utf8)]);
            return;
        }

        // Every character folds to at least one byte, so the first MaxTermBytes characters (at most 4 bytes each) are
        // all a cut term can hold: a 1 MB string costs no more than a 4 KB one.
        utf8 = utf8[..TermLimits.CutLength(utf8, TermLimits.MaxTermBytes * 4)];
        var destination = terms.GetSpan(Utf8CaseFolding.MaxFoldedLength(utf8.Length));
        var length = Utf8CaseFolding.ToLowerInvariant(utf8, destination);
        terms.Advance(TermLimits.CutLength(destination[..length]));
    }
}
