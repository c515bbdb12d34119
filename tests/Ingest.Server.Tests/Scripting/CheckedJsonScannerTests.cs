using System.Text;
using System.Text.Json;
using Ingest.Server.Scripting;
using Ingest.Testing;

namespace Ingest.Server.Tests.Scripting;

/// <summary>
/// The scanner that finds where values end in checked JSON agrees with Utf8JsonReader on every
/// value of random documents: strings of every length around its 16-byte look-ahead, escapes at
/// every offset, nesting, whitespace or none.
/// </summary>
public sealed class CheckedJsonScannerTests
{
    [Fact]
    public void Every_value_ends_where_the_reader_says_it_does() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        for (var round = 0; round < 2_000 * TestSeed.Scale; round++)
        {
            var pretty = random.Next(3) == 0;
            var text = new StringBuilder();
            WriteValue(text, random, depth: 0, pretty);
            var json = Encoding.UTF8.GetBytes(text.ToString());

            var reader = new Utf8JsonReader(json);
            var checkedValues = 0;
            while (reader.Read())
            {
                if (reader.TokenType is JsonTokenType.PropertyName or JsonTokenType.EndObject or JsonTokenType.EndArray)
                {
                    continue;
                }

                var start = (int)reader.TokenStartIndex;
                var copy = reader;
                copy.Skip();
                var expected = (int)copy.BytesConsumed;
                Assert.True(
                    expected == CheckedJsonScanner.SkipValue(json, start),
                    $"the value at {start} of {text} ends at {expected}, the scanner says {CheckedJsonScanner.SkipValue(json, start)}");
                checkedValues++;
            }

            Assert.True(checkedValues > 0);
        }
    });

    [Theory]
    [InlineData("", 0, 0)]
    [InlineData("x", 0, 0)]
    [InlineData("  \t\r\nx", 0, 5)]
    [InlineData("   ", 1, 3)]
    [InlineData("ab", 2, 2)]
    public void Whitespace_is_skipped_to_the_next_byte_or_the_end(string text, int from, int expected) =>
        Assert.Equal(expected, CheckedJsonScanner.SkipWhitespace(Encoding.UTF8.GetBytes(text), from));

    private static readonly string[] Pieces = ["a", "é", "😀", "\\\"", "\\\\", "\\n", "\\u00e9", "\\/", "{", "}", "[", "]", ",", ":", " "];

    private static void WriteValue(StringBuilder text, Random random, int depth, bool pretty)
    {
        var pick = depth >= 5 ? random.Next(2, 6) : random.Next(6);
        switch (pick)
        {
            case 0:
                text.Append('{');
                var properties = random.Next(4);
                for (var i = 0; i < properties; i++)
                {
                    if (i > 0)
                    {
                        text.Append(',');
                    }

                    Space(text, random, pretty);
                    WriteString(text, random);
                    Space(text, random, pretty);
                    text.Append(':');
                    Space(text, random, pretty);
                    WriteValue(text, random, depth + 1, pretty);
                    Space(text, random, pretty);
                }

                text.Append('}');
                break;
            case 1:
                text.Append('[');
                var items = random.Next(4);
                for (var i = 0; i < items; i++)
                {
                    if (i > 0)
                    {
                        text.Append(',');
                    }

                    Space(text, random, pretty);
                    WriteValue(text, random, depth + 1, pretty);
                    Space(text, random, pretty);
                }

                text.Append(']');
                break;
            case 2:
            case 3:
                WriteString(text, random);
                break;
            case 4:
                text.Append(random.Next(4) switch { 0 => "true", 1 => "false", 2 => "null", _ => "-12.5e3" });
                break;
            default:
                text.Append(random.Next(-1_000_000, 1_000_000));
                break;
        }
    }

    // Lengths up to 40 pieces, so quotes and escapes fall on every side of a 16-byte window.
    private static void WriteString(StringBuilder text, Random random)
    {
        text.Append('"');
        var length = random.Next(41);
        for (var i = 0; i < length; i++)
        {
            text.Append(Pieces[random.Next(Pieces.Length)]);
        }

        text.Append('"');
    }

    private static void Space(StringBuilder text, Random random, bool pretty)
    {
        if (pretty && random.Next(2) == 0)
        {
            text.Append(random.Next(3) switch { 0 => " ", 1 => "\n  ", _ => "\t" });
        }
    }
}
