namespace Ingest.Indexing.Terms;

/// <summary>
/// Keyword and text terms longer than <see cref="MaxTermBytes"/> are cut at the last whole UTF-8 character before it:
/// a term becomes a tree key together with its field, and tree keys are limited to 2,000 bytes
/// (Ingest.Storage TreePage.MaxKeySize). Two long values that share their first 1,024 bytes therefore share a term;
/// the query layer cuts its operands the same way.
/// </summary>
internal static class TermLimits
{
    public const int MaxTermBytes = 1024;

    /// <summary>The length of <paramref name="utf8"/> cut to at most <see cref="MaxTermBytes"/> without splitting a character.</summary>
    public static int CutLength(ReadOnlySpan<byte> utf8) => CutLength(utf8, MaxTermBytes);

    /// <summary>The length of <paramref name="utf8"/> cut to at most <paramref name="maxBytes"/> without splitting a character.</summary>
    public static int CutLength(ReadOnlySpan<byte> utf8, int maxBytes)
    {
        if (utf8.Length <= maxBytes)
        {
            return utf8.Length;
        }

        var length = maxBytes;
        while (length > 0 && (utf8[length] & 0xC0) == 0x80)
        {
            length--; // utf8[length] continues the character that starts before it
        }

        return length;
    }
}
