using System.Buffers;
using System.Globalization;
using System.Text;

namespace Ingest.Indexing.Terms;

/// <summary>
/// Splits a string into words for <c>text</c> fields: a word is a maximal run of letters (Lu, Ll, Lt, Lm, Lo), marks
/// (Mn, Mc, Me, so that a decomposed "é" stays one word) and numbers (Nd, Nl, No); everything else separates words.
/// Each word is lower-cased like a keyword and is one term (encoded as <see cref="KeywordTerm"/> draws it), in the order
/// the words appear, repeats included. "Don't" gives "don" and "t"; scripts written without spaces (Chinese, Japanese,
/// Thai) give one term per run, as there is no dictionary segmenter.
/// </summary>
internal static class TextTokenizer
{
    public static void Tokenize(ReadOnlySpan<byte> utf8, TermBuffer terms)
    {
        var i = 0;
        while (i < utf8.Length)
        {
            if (!IsWordCharacter(utf8[i..], out var length))
            {
                i += length;
                continue;
            }

            var start = i;
            do
            {
                i += length;
            }
            while (i < utf8.Length && IsWordCharacter(utf8[i..], out length));

            KeywordTerm.Write(utf8[start..i], exactCase: false, terms);
        }
    }

    /// <summary>Whether the character that starts <paramref name="utf8"/> belongs to a word; <paramref name="length"/> is its byte length.</summary>
    private static bool IsWordCharacter(ReadOnlySpan<byte> utf8, out int length)
    {
        var b = utf8[0];
        if (b < 0x80)
        {
            length = 1;
            return char.IsAsciiLetterOrDigit((char)b);
        }

        if (Rune.DecodeFromUtf8(utf8, out var rune, out length) != OperationStatus.Done)
        {
            return false; // invalid bytes separate words
        }

        return Rune.GetUnicodeCategory(rune) <= UnicodeCategory.OtherNumber;
    }
}
