using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>Every error the parser gives, with its exact position and wording.</summary>
public sealed class QueryParserErrorTests
{
    public static TheoryData<string, string> Errors => new()
    {
        // Clause structure.
        { "", "line 1, col 1: expected 'from' but found end of query" },
        { "select Total", "line 1, col 1: expected 'from' but found 'select'" },
        { "from", "line 1, col 5: expected a collection name or 'index' after 'from' but found end of query" },
        { "from 'Orders'", "line 1, col 6: expected a collection name or 'index' after 'from' but found 'Orders'" },
        { "from index Orders", "line 1, col 12: expected the index name as a string after 'index' but found 'Orders'" },
        { "from Orders Total", "line 1, col 13: expected 'where', 'group by', 'select', 'order by', 'limit', 'offset' or end of query but found 'Total'" },
        { "from Orders where Total = 1 Total", "line 1, col 29: expected 'and', 'or', 'group by', 'select', 'order by', 'limit', 'offset' or end of query but found 'Total'" },
        { "from Orders group Status", "line 1, col 19: expected 'by' after 'group' but found 'Status'" },
        { "from Orders order Total", "line 1, col 19: expected 'by' after 'order' but found 'Total'" },
        { "from Orders group by Status where Total = 1", "line 1, col 29: expected ',', 'select', 'order by', 'limit', 'offset' or end of query but found 'where'" },
        { "from Orders order by Total select Total", "line 1, col 28: expected ',', 'limit', 'offset' or end of query but found 'select'" },
        { "from Orders limit 5 limit 5", "line 1, col 21: expected 'offset' or end of query but found 'limit'" },
        { "from Orders offset 5 limit 5", "line 1, col 22: expected end of query but found 'limit'" },

        // Conditions.
        { "from Orders where", "line 1, col 18: expected a condition after 'where' but found end of query" },
        { "from Orders where order by Total", "line 1, col 19: expected a condition after 'where' but found 'order'" },
        { "from Orders where Total = 1 and", "line 1, col 32: expected a condition after 'and' but found end of query" },
        { "from Orders where Total = 1 or or", "line 1, col 32: expected a condition after 'or' but found 'or'" },
        { "from Orders where not", "line 1, col 22: expected a condition after 'not' but found end of query" },
        { "from Orders where ()", "line 1, col 20: expected a condition after '(' but found ')'" },
        { "from Orders where (Total = 1", "line 1, col 29: expected 'and', 'or' or ')' but found end of query" },
        { "from Orders where Total = 1)", "line 1, col 28: expected 'and', 'or', 'group by', 'select', 'order by', 'limit', 'offset' or end of query but found ')'" },
        { "from Orders where Status 'x'", "line 1, col 26: expected an operator (=, !=, <, <=, >, >=, between or in) after 'Status' but found 'x'" },
        { "from Orders where \"Ship to\".Zip", "line 1, col 32: expected an operator (=, !=, <, <=, >, >=, between or in) after '\"Ship to\".Zip' but found end of query" },
        { "from Orders where 5 < Total", "line 1, col 19: expected a condition after 'where' but found '5'" },
        { "from Orders where Status = order by Total", "line 1, col 28: expected a value after '=' but found 'order'" },
        { "from Orders where Total >= Total", "line 1, col 28: expected a value after '>=' but found 'Total'" },
        { "from Orders where Total between 1 or 2", "line 1, col 35: expected 'and' after the low end of 'between' but found 'or'" },
        { "from Orders where Total between 1 and", "line 1, col 38: expected a value after 'and' but found end of query" },
        { "from Orders where Tags in 'a'", "line 1, col 27: expected '(' after 'in' but found 'a'" },
        { "from Orders where Tags in ()", "line 1, col 28: expected a value after '(' but found ')'" },
        { "from Orders where Tags in ('a' 'b')", "line 1, col 32: expected ',' or ')' in the list of 'in' but found 'b'" },
        { "from Orders where Tags in ('a',)", "line 1, col 32: expected a value after ',' but found ')'" },

        // Functions.
        { "from Orders where foo(Total) = 1", "line 1, col 19: unknown function 'foo'; expected one of startsWith, exists, search, id, count, sum, avg, min, max, facet, ranges, time" },
        { "from Orders select Total, Foo(Total)", "line 1, col 27: unknown function 'Foo'; expected one of startsWith, exists, search, id, count, sum, avg, min, max, facet, ranges, time" },
        { "from Orders where count() = 1", "line 1, col 19: expected a condition after 'where' but found function 'count'" },
        { "from Orders where startsWith(Customer 'a')", "line 1, col 39: expected ',' after the field of 'startsWith(' but found 'a'" },
        { "from Orders where startsWith('a', Customer)", "line 1, col 30: expected a field after 'startsWith(' but found 'a'" },
        { "from Orders where search(Notes, 'a'", "line 1, col 36: expected ')' but found end of query" },
        { "from Orders where exists('x')", "line 1, col 26: expected a field after 'exists(' but found 'x'" },
        { "from Orders where exists(sum(Total))", "line 1, col 26: expected a field after 'exists(' but found function 'sum'" },
        { "from Orders where id(x) = 1", "line 1, col 22: expected ')' after 'id(' but found 'x'" },
        { "from Orders select time(OrderedAt, '5m')", "line 1, col 20: expected a field, an aggregate or a facet after 'select' but found function 'time'" },
        { "from Orders select", "line 1, col 19: expected a field, an aggregate or a facet after 'select' but found end of query" },
        { "from Orders select Total,", "line 1, col 26: expected a field, an aggregate or a facet after ',' but found end of query" },
        { "from Orders select sum()", "line 1, col 24: expected a field after 'sum(' but found ')'" },
        { "from Orders select count('x')", "line 1, col 26: expected a field or ')' after 'count(' but found 'x'" },
        { "from Orders select count(Total", "line 1, col 31: expected ')' but found end of query" },
        { "from Orders select facet(Total, 1)", "line 1, col 33: expected 'ranges(' after ',' in 'facet(' but found '1'" },
        { "from Orders select facet(Total, ranges())", "line 1, col 40: expected a value after '(' but found ')'" },
        { "from Orders select Total as", "line 1, col 28: expected a name after 'as' but found end of query" },
        { "from Orders select Total as ''", "line 1, col 29: empty name after 'as'" },
        { "from Orders select Total as 5", "line 1, col 29: expected a name after 'as' but found '5'" },
        { "from Orders group by sum(Total)", "line 1, col 22: expected a field or time(field, interval) after 'by' but found function 'sum'" },
        { "from Orders group by time(OrderedAt)", "line 1, col 36: expected ',' after the field of 'time(' but found ')'" },
        { "from Orders group by", "line 1, col 21: expected a field or time(field, interval) after 'by' but found end of query" },
        { "from Orders order by facet(Status)", "line 1, col 22: expected a field or an aggregate after 'by' but found function 'facet'" },
        { "from Orders order by Total as foo", "line 1, col 31: expected 'number' or 'string' after 'as' but found 'foo'" },
        { "from Orders order by Total,", "line 1, col 28: expected a field or an aggregate after ',' but found end of query" },

        // Fields.
        { "from Orders where Customer. = 1", "line 1, col 29: expected a field name after '.' but found '='" },
        { "from Orders where Lines[.Sku = 1", "line 1, col 25: expected ']' after '[' but found '.'" },
        { "from Orders where Lines] = 1", "line 1, col 24: expected an operator (=, !=, <, <=, >, >=, between or in) after 'Lines' but found ']'" },

        // Limit and offset.
        { "from Orders limit -1", "line 1, col 19: expected a non-negative integer or a parameter after 'limit' but found '-1'" },
        { "from Orders limit 1.5", "line 1, col 19: expected a non-negative integer or a parameter after 'limit' but found '1.5'" },
        { "from Orders limit 1e3", "line 1, col 19: expected a non-negative integer or a parameter after 'limit' but found '1e3'" },
        { "from Orders limit '5'", "line 1, col 19: expected a non-negative integer or a parameter after 'limit' but found '5'" },
        { "from Orders limit 10 offset", "line 1, col 28: expected a non-negative integer or a parameter after 'offset' but found end of query" },

        // Tokens.
        { "from Orders where Name = 'abc", "line 1, col 26: unterminated string: expected a closing '" },
        { "from Orders where \"Ship to = 1", "line 1, col 19: unterminated quoted name: expected a closing \"" },
        { "from Orders where `Ship to = 1", "line 1, col 19: unterminated quoted name: expected a closing `" },
        { "from Orders where \"a\\b\" = 1", "line 1, col 21: expected '\\\"' or '\\\\' after '\\' in a quoted name" },
        { "from Orders where \"\" = 1", "line 1, col 19: empty quoted name" },
        { "from Orders where `` = 1", "line 1, col 19: empty quoted name" },
        { "from Orders where Total = 01", "line 1, col 27: invalid number '01': numbers are written as in JSON (0, -12, 3.5, 1e9)" },
        { "from Orders where Total = 1.", "line 1, col 27: invalid number '1.': numbers are written as in JSON (0, -12, 3.5, 1e9)" },
        { "from Orders where Total = 2e+", "line 1, col 27: invalid number '2e+': numbers are written as in JSON (0, -12, 3.5, 1e9)" },
        { "from Orders where Total = 1e999", "line 1, col 27: number '1e999' is out of range" },
        { "from Orders where Total = - 5", "line 1, col 27: unexpected character '-'; a negative number is written -12.5" },
        { "from Orders where Total = $", "line 1, col 27: expected a parameter name after '$'" },
        { "from Orders where Total # 1", "line 1, col 25: unexpected character '#'" },
        { "from Orders where Total ! 1", "line 1, col 25: unexpected character '!'; did you mean '!='?" },
        { "from Orders where Total = 1\u0001", "line 1, col 28: unexpected character U+0001" },
        { "from Orders where Total = 1 😀", "line 1, col 29: unexpected character '😀'" },
        { "from Orders where Total = 1 \u200b", "line 1, col 29: unexpected character U+200B" },

        // Long tokens are shortened in messages.
        { "from Orders where Status = 'x' " + new string('a', 50), "line 1, col 32: expected 'and', 'or', 'group by', 'select', 'order by', 'limit', 'offset' or end of query but found '" + new string('a', 37) + "...'" },
    };

    [Theory]
    [MemberData(nameof(Errors))]
    public void Error_names_the_position_and_what_was_expected(string text, string message)
    {
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse(text));

        Assert.Equal(message, error.Message);
        Assert.Equal(error.Message, $"{error.Position}: {error.Detail}");
        Assert.Equal(ExpectedOffset(text, error.Position), error.Position.Offset);
    }

    [Fact]
    public void A_lone_surrogate_is_shown_by_its_code()
    {
        // Not theory data: xunit's serialization of theory data replaces a lone surrogate.
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse("from Orders where Total = 1 \ud800"));
        Assert.Equal("line 1, col 29: unexpected character U+D800", error.Message);
    }

    [Fact]
    public void Errors_on_later_lines_count_lines_and_columns_from_the_line_start()
    {
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse("from Orders\nwhere Total =\n  order by Total"));
        Assert.Equal("line 3, col 3: expected a value after '=' but found 'order'", error.Message);

        error = Assert.Throws<QueryException>(() => QueryParser.Parse("from Orders\r\nwhere Total = 1\r\n\r\n\tand # "));
        Assert.Equal("line 4, col 6: unexpected character '#'", error.Message);

        // A lone CR ends a line too; a string or a quoted name spanning lines moves the position on.
        error = Assert.Throws<QueryException>(() => QueryParser.Parse("from Orders\rwhere Notes = 'a\nb' and \"x\ny\" = 1 or"));
        Assert.Equal("line 4, col 10: expected a condition after 'or' but found end of query", error.Message);
        Assert.Equal(48, error.Position.Offset);
    }

    [Fact]
    public void Nesting_up_to_the_depth_limit_parses_and_one_level_more_fails_at_the_parenthesis()
    {
        var depth = QueryLimits.MaxDepth;
        var ok = "from Orders where " + new string('(', depth) + "Total = 1" + new string(')', depth);
        Assert.IsType<ComparisonFilter>(QueryParser.Parse(ok).Where);

        var tooDeep = "from Orders where " + new string('(', depth + 1) + "Total = 1" + new string(')', depth + 1);
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse(tooDeep));
        Assert.Equal($"line 1, col {19 + depth}: the condition nests deeper than 64 levels of parentheses and 'not'", error.Message);

        var nots = "from Orders where " + string.Concat(Enumerable.Repeat("not ", depth + 1)) + "Total = 1";
        error = Assert.Throws<QueryException>(() => QueryParser.Parse(nots));
        Assert.Equal($"line 1, col {19 + (4 * depth)}: the condition nests deeper than 64 levels of parentheses and 'not'", error.Message);
    }

    [Fact]
    public void Ten_thousand_levels_of_nesting_give_a_query_error_not_a_stack_overflow()
    {
        var parens = "from Orders where " + new string('(', 10_000) + "Total = 1" + new string(')', 10_000);
        Assert.Throws<QueryException>(() => QueryParser.Parse(parens));

        var nots = "from Orders where " + string.Concat(Enumerable.Repeat("not ", 10_000)) + "Total = 1";
        Assert.Throws<QueryException>(() => QueryParser.Parse(nots));
    }

    [Fact]
    public void An_in_list_takes_1024_values_and_not_one_more()
    {
        var values = string.Join(", ", Enumerable.Range(0, QueryLimits.MaxListValues));
        var parsed = QueryParser.Parse($"from Orders where Total in ({values})");
        Assert.Equal(1024, Assert.IsType<InFilter>(parsed.Where).Values.Count);

        var text = $"from Orders where Total in ({values}, 1024)";
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse(text));
        Assert.Equal(text.LastIndexOf("1024", StringComparison.Ordinal), error.Position.Offset);
        Assert.EndsWith(": more than 1,024 values in the list of 'in'", error.Message, StringComparison.Ordinal);

        var ranges = $"from Orders select facet(Total, ranges({values}, 1024))";
        error = Assert.Throws<QueryException>(() => QueryParser.Parse(ranges));
        Assert.EndsWith(": more than 1,024 values in the list of 'ranges'", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Query_text_is_limited_to_64_KiB_of_UTF8()
    {
        var prefix = "from Orders where Name = '";
        var fits = prefix + new string('a', QueryLimits.MaxTextBytes - prefix.Length - 1) + "'";
        Assert.Equal(QueryLimits.MaxTextBytes, fits.Length);
        Assert.NotNull(QueryParser.Parse(fits).Where);

        var tooLong = prefix + new string('a', QueryLimits.MaxTextBytes - prefix.Length) + "'";
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse(tooLong));
        Assert.Equal("line 1, col 1: the query is longer than 65,536 bytes (64 KiB)", error.Message);

        // Counted in UTF-8 bytes: 30,000 two-byte characters are 60,000 bytes.
        var wide = prefix + new string('é', 33_000) + "'";
        Assert.True(wide.Length < QueryLimits.MaxTextBytes);
        Assert.Throws<QueryException>(() => QueryParser.Parse(wide));
    }

    [Fact]
    public void A_path_longer_than_64_steps_is_an_error_at_the_field()
    {
        var path = string.Join(".", Enumerable.Repeat("a", 65));
        var error = Assert.Throws<QueryException>(() => QueryParser.Parse($"from Orders where {path} = 1"));
        Assert.Equal("line 1, col 19: the field path has more than 64 steps", error.Message);

        var fits = string.Join(".", Enumerable.Repeat("a", 64));
        Assert.Equal(fits, Assert.IsType<ComparisonFilter>(QueryParser.Parse($"from Orders where {fits} = 1").Where).Field.Path);
    }

    /// <summary>The offset of a line and column, computed independently of the lexer.</summary>
    internal static int ExpectedOffset(string text, SourcePosition position)
    {
        var line = 1;
        var offset = 0;
        while (line < position.Line)
        {
            var c = text[offset++];
            if (c == '\n' || (c == '\r' && (offset == text.Length || text[offset] != '\n')))
            {
                line++;
            }
        }

        return offset + position.Column - 1;
    }
}
