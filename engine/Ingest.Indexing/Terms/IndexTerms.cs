using System.Text;

namespace Ingest.Indexing.Terms;

/// <summary>
/// The terms an index holds for a value, for a query that compares with them byte for byte: the same encodings the
/// extraction writes (<see cref="NumberTerm"/>, <see cref="DateTimeTerm"/>, <see cref="BoolTerm"/>, keywords folded
/// and cut as <see cref="KeywordTerm"/> does, text split by <see cref="TextTokenizer"/>). Each call allocates its term:
/// for binding a query's literals, not for indexing.
/// </summary>
public static class IndexTerms
{
    /// <summary>Longest term in bytes; longer keywords are cut on a character boundary.</summary>
    public const int MaxTermBytes = TermLimits.MaxTermBytes;

    public static byte[] Number(double value)
    {
        var term = new byte[NumberTerm.Size];
        NumberTerm.Write(value, term);
        return term;
    }

    public static byte[] DateTime(long utcTicks)
    {
        var term = new byte[DateTimeTerm.Size];
        DateTimeTerm.Write(utcTicks, term);
        return term;
    }

    public static byte[] Bool(bool value) => [BoolTerm.Encode(value)];

    /// <summary>The keyword term of a string: UTF-8, lower-cased unless <paramref name="exactCase"/>, cut at <see cref="MaxTermBytes"/> on a character boundary.</summary>
    public static byte[] Keyword(string value, bool exactCase)
    {
        ArgumentNullException.ThrowIfNull(value);
        var utf8 = Encoding.UTF8.GetBytes(value);
        if (exactCase)
        {
            return utf8[..TermLimits.CutLength(utf8)];
        }

        var source = utf8.AsSpan(0, TermLimits.CutLength(utf8, TermLimits.MaxTermBytes * 4));
        var folded = new byte[Utf8CaseFolding.MaxFoldedLength(source.Length)];
        var length = Utf8CaseFolding.ToLowerInvariant(source, folded);
        return folded[..TermLimits.CutLength(folded.AsSpan(0, length))];
    }

    /// <summary>The words of a text value as the index's tokenizer makes them, distinct, in order of first appearance.</summary>
    public static IReadOnlyList<byte[]> TextWords(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        using var buffer = new TermBuffer();
        TextTokenizer.Tokenize(Encoding.UTF8.GetBytes(text), buffer);
        var words = new List<byte[]>(buffer.Count);
        for (var i = 0; i < buffer.Count; i++)
        {
            var word = buffer[i];
            var seen = false;
            foreach (var existing in words)
            {
                seen |= existing.AsSpan().SequenceEqual(word);
            }

            if (!seen)
            {
                words.Add(word.ToArray());
            }
        }

        return words;
    }
}
