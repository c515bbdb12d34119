using System.Text;
using System.Text.Json;
using Ingest.Documents.Json;

namespace Ingest.Documents.Tests.Json;

/// <summary>
/// The fast check may say "not proven" to anything, but must never accept what Utf8JsonReader
/// refuses; and it must accept ordinary documents, or it saves nothing.
/// </summary>
public sealed class JsonObjectFastCheckTests
{
    private const int MaxDepth = 64;

    [Theory]
    [InlineData("{}")]
    [InlineData(" \t\r\n{ } \n")]
    [InlineData("{\"a\":1}")]
    [InlineData("{\"a\":[1,-2,3.5,-0.25e-3,4E+2,0,-0,1e9],\"b\":{\"c\":[],\"d\":{}},\"e\":true,\"f\":false,\"g\":null}")]
    [InlineData("{ \"a\" : [ 1 , { \"b\" : \"x\" } ] , \"c\" : \"\" }")]
    [InlineData("{\"esc\":\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\u20AC\"}")]
    [InlineData("{\"unicode\":\"Søren café 東京 😀\"}")]
    [InlineData("{\"a\":\"\",\"a\":\"duplicate names are allowed\"}")]
    public void Accepts_ordinary_objects(string json)
    {
        var bytes = Encoding.UTF8.GetBytes(json);
        Assert.True(ReaderAccepts(bytes, MaxDepth), "the reader itself refused the case");
        Assert.True(JsonObjectFastCheck.IsCertainlyValidObject(bytes, MaxDepth));
    }

    [Theory]
    [InlineData("")]
    [InlineData("   ")]
    [InlineData("[1]")]
    [InlineData("\"s\"")]
    [InlineData("1")]
    [InlineData("null")]
    [InlineData("{")]
    [InlineData("{\"a\":1")]
    [InlineData("{\"a\":1,}")]
    [InlineData("{\"a\":[1,]}")]
    [InlineData("{,\"a\":1}")]
    [InlineData("{\"a\":[,1]}")]
    [InlineData("{\"a\" 1}")]
    [InlineData("{\"a\":}")]
    [InlineData("{'a':1}")]
    [InlineData("{a:1}")]
    [InlineData("{\"a\":01}")]
    [InlineData("{\"a\":1.}")]
    [InlineData("{\"a\":.5}")]
    [InlineData("{\"a\":-}")]
    [InlineData("{\"a\":1e}")]
    [InlineData("{\"a\":1e+}")]
    [InlineData("{\"a\":+1}")]
    [InlineData("{\"a\":0x10}")]
    [InlineData("{\"a\":NaN}")]
    [InlineData("{\"a\":Infinity}")]
    [InlineData("{\"a\":tru}")]
    [InlineData("{\"a\":truex}")]
    [InlineData("{\"a\":nul}")]
    [InlineData("{\"a\":True}")]
    [InlineData("{\"a\":1\"b\"}")]
    [InlineData("{\"a\":\"x\"\"b\":1}")]
    [InlineData("{\"a\":\"\\x\"}")]
    [InlineData("{\"a\":\"\\u12\"}")]
    [InlineData("{\"a\":\"\\u12G4\"}")]
    [InlineData("{\"a\":\"\t\"}")]
    [InlineData("{\"a\":\"unterminated}")]
    [InlineData("{\"a\":1}x")]
    [InlineData("{\"a\":1}{}")]
    [InlineData("{\"a\":1} 2")]
    [InlineData("{\"a\":[1}]")]
    [InlineData("{\"a\":{1]}")]
    [InlineData("{\"a\":1]")]
    [InlineData("{/*c*/\"a\":1}")]
    [InlineData("{\"a\":1//c\n}")]
    [InlineData("\uFEFF{\"a\":1}")]
    public void Refuses_what_is_not_one_well_formed_object(string json)
    {
        var bytes = Encoding.UTF8.GetBytes(json);
        Assert.False(JsonObjectFastCheck.IsCertainlyValidObject(bytes, MaxDepth));
    }

    [Fact]
    public void Leaves_surrogate_escapes_to_the_reader()
    {
        // The reader accepts a lone surrogate escape and fails only when the string is decoded;
        // the fast check does not try to know that.
        var bytes = "{\"a\":\"\\uD83D\\uDE00\"}"u8.ToArray();
        Assert.False(JsonObjectFastCheck.IsCertainlyValidObject(bytes, MaxDepth));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(2)]
    [InlineData(16)]
    [InlineData(64)]
    [InlineData(128)]
    public void Never_accepts_nesting_the_reader_refuses(int maxDepth)
    {
        var acceptedDeepest = 0;
        for (var levels = 1; levels <= maxDepth + 3; levels++)
        {
            // One object, then arrays: {"a":[[0]]} has three levels.
            var json = "{\"a\":" + new string('[', levels - 1) + "0" + new string(']', levels - 1) + "}";
            var bytes = Encoding.UTF8.GetBytes(json);
            if (JsonObjectFastCheck.IsCertainlyValidObject(bytes, maxDepth))
            {
                Assert.True(ReaderAccepts(bytes, maxDepth), $"accepted {levels} levels that the reader refuses at max depth {maxDepth}");
                acceptedDeepest = levels;
            }
        }

        // Only the last level before the limit is left to the reader.
        Assert.Equal(maxDepth - 1, acceptedDeepest);
    }

    [Fact]
    public void Agrees_with_the_reader_on_random_documents_and_their_mutations() => TestSeed.Run(seed =>
    {
        var random = new Random(seed);
        var fastAcceptedValid = 0;
        var valid = 0;
        for (var round = 0; round < 3_000 * TestSeed.Scale; round++)
        {
            var document = RandomDocument(random, maxNesting: random.Next(1, 12));
            var bytes = Encoding.UTF8.GetBytes(document);
            var readerAccepts = ReaderAccepts(bytes, MaxDepth);
            var fastAccepts = JsonObjectFastCheck.IsCertainlyValidObject(bytes, MaxDepth);
            Assert.True(readerAccepts, $"the generator made invalid JSON: {document}");
            valid++;
            if (fastAccepts)
            {
                fastAcceptedValid++;
            }

            for (var m = 0; m < 8; m++)
            {
                var mutated = Mutate(random, bytes);
                if (JsonObjectFastCheck.IsCertainlyValidObject(mutated, MaxDepth))
                {
                    Assert.True(
                        ReaderAccepts(mutated, MaxDepth),
                        $"accepted what the reader refuses: {Encoding.UTF8.GetString(mutated)}");
                }
            }
        }

        // The generator writes no surrogate escapes and stays far from the depth limit, so every
        // valid document must take the fast path.
        Assert.Equal(valid, fastAcceptedValid);
    });

    private static bool ReaderAccepts(byte[] json, int maxDepth)
    {
        var reader = new Utf8JsonReader(json, new JsonReaderOptions { CommentHandling = JsonCommentHandling.Disallow, MaxDepth = maxDepth });
        try
        {
            if (!reader.Read() || reader.TokenType != JsonTokenType.StartObject)
            {
                return false;
            }

            while (reader.Read())
            {
            }

            return true;
        }
        catch (JsonException)
        {
            return false;
        }
    }

    private static readonly string[] Scalars =
        ["0", "-0", "1", "-17", "3.25", "-0.5e-7", "6.02E23", "1e+2", "true", "false", "null", "\"\"", "\"text\"",
         "\"Søren 東京 😀\"", "\"\\\"q\\\" \\\\ \\/ \\b\\f\\n\\r\\t\"", "\"\\u00e9\\u20ac\\u0041\"", "123456789012345678901234567890"];

    private static readonly string[] Spaces = ["", "", "", " ", "\n", "\r\n  ", "\t"];

    private static string RandomDocument(Random random, int maxNesting)
    {
        var text = new StringBuilder();
        WriteObject(text, random, maxNesting);
        return Spaces[random.Next(Spaces.Length)] + text + Spaces[random.Next(Spaces.Length)];
    }

    private static void WriteValue(StringBuilder text, Random random, int nesting)
    {
        var pick = random.Next(10);
        if (nesting > 0 && pick == 0)
        {
            WriteObject(text, random, nesting - 1);
        }
        else if (nesting > 0 && pick == 1)
        {
            text.Append('[').Append(Spaces[random.Next(Spaces.Length)]);
            var count = random.Next(4);
            for (var i = 0; i < count; i++)
            {
                if (i > 0)
                {
                    text.Append(',').Append(Spaces[random.Next(Spaces.Length)]);
                }

                WriteValue(text, random, nesting - 1);
            }

            text.Append(Spaces[random.Next(Spaces.Length)]).Append(']');
        }
        else
        {
            text.Append(Scalars[random.Next(Scalars.Length)]);
        }
    }

    private static void WriteObject(StringBuilder text, Random random, int nesting)
    {
        text.Append('{');
        var count = random.Next(5);
        for (var i = 0; i < count; i++)
        {
            if (i > 0)
            {
                text.Append(',');
            }

            text.Append(Spaces[random.Next(Spaces.Length)]).Append("\"k").Append(random.Next(100)).Append('"')
                .Append(Spaces[random.Next(Spaces.Length)]).Append(':').Append(Spaces[random.Next(Spaces.Length)]);
            WriteValue(text, random, nesting);
        }

        text.Append('}');
    }

    // Bytes that matter to JSON's grammar, so mutations land on interesting mistakes.
    private static readonly byte[] Interesting = "{}[]:,\"\\ \n\t0123456789-+.eEtrufalsn/'ux*#\0\u001f"u8.ToArray();

    private static byte[] Mutate(Random random, byte[] bytes)
    {
        var list = new List<byte>(bytes);
        var edits = random.Next(1, 4);
        for (var e = 0; e < edits; e++)
        {
            var at = list.Count == 0 ? 0 : random.Next(list.Count);
            switch (random.Next(5))
            {
                case 0 when list.Count > 0:
                    list.RemoveAt(at);
                    break;
                case 1:
                    list.Insert(at, Interesting[random.Next(Interesting.Length)]);
                    break;
                case 2 when list.Count > 0:
                    list[at] = Interesting[random.Next(Interesting.Length)];
                    break;
                case 3 when list.Count > 1:
                    list.RemoveRange(at, list.Count - at);
                    break;
                default:
                    list.Insert(at, Interesting[random.Next(Interesting.Length)]);
                    list.Insert(at, Interesting[random.Next(Interesting.Length)]);
                    break;
            }
        }

        return [.. list];
    }
}
