using System.Text;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>
/// Seeded grammar fuzzing (INGEST_TEST_SEED replays a run): random valid queries round-trip through the formatter and
/// through random respellings; random mutations of them and random text give a QueryException or a query that
/// round-trips, never any other exception.
/// </summary>
public sealed class QueryGrammarFuzzTests
{
    private static readonly string[] Spaces = [" ", "  ", "\t", "\n", "\r\n", " \r ", "\u00a0"];

    [Fact]
    public void Random_valid_queries_round_trip_through_the_formatter_and_respellings()
    {
        TestSeed.Run(seed =>
        {
            var random = new Random(seed);
            var generator = new RandomQueryGenerator(random);
            for (var i = 0; i < 3_000 * TestSeed.Scale; i++)
            {
                var query = generator.Query();
                var expected = SyntaxTreeDump.Dump(query);
                var text = QueryFormatter.Format(query);
                AssertParsesTo(expected, text);
                AssertParsesTo(expected, Respell(text, random));
            }
        });
    }

    [Fact]
    public void Mutated_queries_give_a_query_error_or_a_query_that_round_trips()
    {
        TestSeed.Run(seed =>
        {
            var random = new Random(seed);
            var generator = new RandomQueryGenerator(random);
            var failures = 0;
            var total = 6_000 * TestSeed.Scale;
            for (var i = 0; i < total; i++)
            {
                var text = QueryFormatter.Format(generator.Query());
                var mutated = QueryMutations.Mutate(text, random);
                failures += ParseOrQueryError(mutated) ? 0 : 1;
            }

            // Most mutations break the query; if almost none did, the mutations are not reaching the parser's errors.
            Assert.True(failures > total / 3, $"only {failures} of {total} mutations were errors");
        });
    }

    [Fact]
    public void Random_text_gives_a_query_error_never_another_exception()
    {
        TestSeed.Run(seed =>
        {
            var random = new Random(seed);
            for (var i = 0; i < 3_000 * TestSeed.Scale; i++)
            {
                var text = new StringBuilder(i % 2 == 0 ? "from O where " : "");
                for (var n = random.Next(40); n > 0; n--)
                {
                    text.Append(random.Next(4) switch
                    {
                        0 => QueryMutations.TokenPool[random.Next(QueryMutations.TokenPool.Length)],
                        1 => ((char)random.Next(0x10000)).ToString(),
                        2 => ((char)random.Next(32, 127)).ToString(),
                        _ => " ",
                    });
                }

                ParseOrQueryError(text.ToString());
            }
        });
    }

    [Fact]
    public void Deep_nesting_of_every_recursive_construct_is_a_query_error()
    {
        TestSeed.Run(seed =>
        {
            var generator = new RandomQueryGenerator(new Random(seed));
            var condition = QueryFormatter.FormatFilter(generator.Filter(3));
            string[] deep =
            [
                "from O where " + new string('(', 10_000) + condition + new string(')', 10_000),
                "from O where " + string.Concat(Enumerable.Repeat("not (", 10_000)) + condition + new string(')', 10_000),
                "from O where " + string.Concat(Enumerable.Repeat("not ", 10_000)) + condition,
                "from O where " + string.Concat(Enumerable.Repeat("A = 1 and (", 5_000)) + condition + new string(')', 5_000),
                "from O where " + new string('(', 10_000),
                "from O select " + string.Concat(Enumerable.Repeat("count(", 10_000)),
                "from O where " + string.Concat(Enumerable.Repeat("startsWith(", 10_000)),
            ];
            foreach (var text in deep)
            {
                Assert.Throws<QueryException>(() => QueryParser.Parse(text));
            }
        });
    }

    private static void AssertParsesTo(string expectedDump, string text)
    {
        ParsedQuery parsed;
        try
        {
            parsed = QueryParser.Parse(text);
        }
        catch (QueryException ex)
        {
            throw new Xunit.Sdk.XunitException($"valid query failed to parse: {ex.Message}{Environment.NewLine}{text}");
        }

        var dump = SyntaxTreeDump.Dump(parsed);
        if (dump != expectedDump)
        {
            throw new Xunit.Sdk.XunitException($"query parsed to another tree{Environment.NewLine}text: {text}{Environment.NewLine}expected: {expectedDump}{Environment.NewLine}actual:   {dump}");
        }
    }

    /// <summary>True when the text parsed (and then round-trips), false when it gave a well-placed QueryException.</summary>
    private static bool ParseOrQueryError(string text)
    {
        ParsedQuery parsed;
        try
        {
            parsed = QueryParser.Parse(text);
        }
        catch (QueryException ex)
        {
            Assert.InRange(ex.Position.Offset, 0, text.Length);
            Assert.InRange(ex.Position.Line, 1, int.MaxValue);
            Assert.InRange(ex.Position.Column, 1, int.MaxValue);
            Assert.Equal(QueryParserErrorTests.ExpectedOffset(text, ex.Position), ex.Position.Offset);
            Assert.StartsWith($"line {ex.Position.Line}, col {ex.Position.Column}: ", ex.Message, StringComparison.Ordinal);
            return false;
        }
        catch (Exception ex)
        {
            throw new Xunit.Sdk.XunitException($"{ex.GetType().Name} instead of a QueryException for: {text}{Environment.NewLine}{ex}");
        }

        AssertParsesTo(SyntaxTreeDump.Dump(parsed), QueryFormatter.Format(parsed));
        return true;
    }

    /// <summary>The same query with random whitespace between tokens and keywords and function names in random case.</summary>
    private static string Respell(string text, Random random)
    {
        var tokens = QueryMutations.Tokens(text);
        var result = new StringBuilder();
        for (var i = 0; i < tokens.Count; i++)
        {
            var (token, source) = tokens[i];
            var isFunction = token.Kind == TokenKind.Identifier && i + 1 < tokens.Count && tokens[i + 1].Token.Kind == TokenKind.LeftParen;
            if (token.IsKeyword || isFunction)
            {
                source = RandomCase(source, random);
            }

            result.Append(source).Append(Spaces[random.Next(Spaces.Length)]);
        }

        return result.ToString();
    }

    private static string RandomCase(string word, Random random)
    {
        var chars = word.ToCharArray();
        for (var i = 0; i < chars.Length; i++)
        {
            chars[i] = random.Next(2) == 0 ? char.ToUpperInvariant(chars[i]) : char.ToLowerInvariant(chars[i]);
        }

        return new string(chars);
    }
}
