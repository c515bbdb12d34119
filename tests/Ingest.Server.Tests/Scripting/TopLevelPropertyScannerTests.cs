using System.Text;
using System.Text.Json;
using Ingest.Server.Scripting;
using Ingest.Testing;

namespace Ingest.Server.Tests.Scripting;

/// <summary>
/// The 64-byte block scanner finds the same top-level properties as Utf8JsonReader in random objects
/// (strings, brackets, commas and colons inside strings, escaped quotes and runs of backslashes on
/// every side of a block's edge, whitespace or none, non-ASCII text), and gives up on exactly the
/// objects with an escaped top-level name.
/// </summary>
public sealed class TopLevelPropertyScannerTests
{
    private static readonly string[] Pieces = ["a", "é", "😀", "{", "}", "[", "]", ",", ":", " ", "xyzw", "0123456789abcdef"];

    // Escapes, among them runs of backslashes that end just before a quote (escaped or closing).
    private static readonly string[] Escapes = ["\\\"", "\\\\", "\\n", "\\u002B", "\\\\\\\"", "\\\\\\\\", "\\/"];

    [Fact]
    public void Every_top_level_property_is_where_the_reader_says_it_is() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        for (var round = 0; round < 3_000 * TestSeed.Scale; round++)
        {
            var pretty = random.Next(3) == 0;
            var escapes = random.Next(2) == 0;
            var text = new StringBuilder();
            Space(text, random, pretty);
            WriteObject(text, random, depth: 0, pretty, escapes);
            Space(text, random, pretty);
            var json = Encoding.UTF8.GetBytes(text.ToString());

            var entries = new LazyJsonEntry[2];
            var count = TopLevelPropertyScanner.TryIndex(json, json.AsSpan().IndexOf((byte)'{'), ref entries);
            var (expected, escapedName) = Expected(json);
            if (escapedName)
            {
                Assert.True(count == -1, $"{text}: an escaped name must send the object to be read whole");
                continue;
            }

            Assert.True(expected.Count == count, $"{text}: {expected.Count} properties, the scanner found {count}");
            for (var i = 0; i < count; i++)
            {
                Assert.True(expected[i] == entries[i], $"{text}: property {i} is {expected[i]}, the scanner says {entries[i]}");
            }
        }
    });

    [Fact]
    public void The_profile_shape_is_indexed_with_escaped_values()
    {
        var json = Encoding.UTF8.GetBytes(
            """{"id":"customers/1","phone":"\u002B47 1","name":{"first":"A\\","display":"A \"B\""},"tags":["x\\","y"],"address":{"city":"Oslo","geo":{"lat":1.5}},"orders":[{"id":1,"lines":[{"sku":"s,:{}[]\\"}]}],"active":true,"last":null}""");
        var reader = new Utf8JsonToJsValue(new Jint.Engine());
        Assert.Equal(Expected(json).Entries, reader.Index(json)!);
        Assert.Null(reader.Index("""{"a":1,"n\u0061me":2}"""u8));
    }

    // The top-level properties as the reader sees them, and whether a name among them is escaped.
    private static (List<LazyJsonEntry> Entries, bool EscapedName) Expected(byte[] json)
    {
        var found = new List<LazyJsonEntry>();
        var escapedName = false;
        var reader = new Utf8JsonReader(json);
        reader.Read();
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            escapedName |= reader.ValueIsEscaped;
            var nameStart = (int)reader.TokenStartIndex + 1;
            var nameLength = reader.ValueSpan.Length;
            reader.Read();
            var valueStart = (int)reader.TokenStartIndex;
            reader.Skip();
            found.Add(new LazyJsonEntry(nameStart, nameLength, valueStart, (int)reader.BytesConsumed));
        }

        return (found, escapedName);
    }

    private static void WriteObject(StringBuilder text, Random random, int depth, bool pretty, bool escapes)
    {
        text.Append('{');
        var properties = random.Next(depth == 0 ? 12 : 4);
        for (var i = 0; i < properties; i++)
        {
            if (i > 0)
            {
                text.Append(',');
            }

            Space(text, random, pretty);
            WriteString(text, random, escapes);
            Space(text, random, pretty);
            text.Append(':');
            Space(text, random, pretty);
            WriteValue(text, random, depth + 1, pretty, escapes);
            Space(text, random, pretty);
        }

        text.Append('}');
    }

    private static void WriteValue(StringBuilder text, Random random, int depth, bool pretty, bool escapes)
    {
        switch (depth >= 4 ? random.Next(2, 6) : random.Next(6))
        {
            case 0:
                WriteObject(text, random, depth, pretty, escapes);
                break;
            case 1:
                text.Append('[');
                var items = random.Next(5);
                for (var i = 0; i < items; i++)
                {
                    if (i > 0)
                    {
                        text.Append(',');
                    }

                    Space(text, random, pretty);
                    WriteValue(text, random, depth + 1, pretty, escapes);
                    Space(text, random, pretty);
                }

                text.Append(']');
                break;
            case 2:
            case 3:
                WriteString(text, random, escapes);
                break;
            case 4:
                text.Append(random.Next(4) switch { 0 => "true", 1 => "false", 2 => "null", _ => "-12.5e3" });
                break;
            default:
                text.Append(random.Next(-1_000_000, 1_000_000));
                break;
        }
    }

    // Up to 30 pieces (some of 16 bytes), so strings span blocks and quotes fall on every byte of one.
    private static void WriteString(StringBuilder text, Random random, bool escapes)
    {
        text.Append('"');
        var length = random.Next(31);
        for (var i = 0; i < length; i++)
        {
            text.Append(escapes && random.Next(6) == 0 ? Escapes[random.Next(Escapes.Length)] : Pieces[random.Next(Pieces.Length)]);
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
