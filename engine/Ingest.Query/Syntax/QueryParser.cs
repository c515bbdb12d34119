using System.Globalization;
using System.Text;

namespace Ingest.Query.Syntax;

/// <summary>
/// Recursive-descent parser of the query language:
/// <code>
/// query     := 'from' source ['where' or] ['group by' groupItem (',' groupItem)*] ['select' selectItem (',' selectItem)*]
///              ['order by' orderItem (',' orderItem)*] ['limit' count] ['offset' count]
/// source    := name | 'index' string
/// or        := and ('or' and)*            and := unary ('and' unary)*
/// unary     := 'not' unary | '(' or ')' | startsWith(field, value) | exists(field) | search(field, value)
///            | field (op value | 'between' value 'and' value | 'in' '(' value (',' value)* ')')
/// field     := 'id()' | 'Id' | segment ('[]')* ('.' segment ('[]')*)*     segment := identifier | "quoted" | `quoted`
/// groupItem := field | time(field, value)
/// selectItem:= (field | count() | count(field) | sum|avg|min|max(field) | facet(field [, ranges(value, ...)])) ['as' name]
/// orderItem := (field | aggregate) ['as' ('number' | 'string')] ['asc' | 'desc']
/// value     := string | number | true | false | null | $parameter          count := integer | $parameter
/// </code>
/// Every error is a <see cref="QueryException"/> at the offending token. Recursion is bounded by
/// <see cref="QueryLimits.MaxDepth"/>, and chains of <c>and</c>/<c>or</c> become balanced trees, so a query's tree
/// is never deep enough to exhaust the stack of code that walks it recursively.
/// </summary>
public sealed class QueryParser
{
    private readonly QueryLexer _lexer;
    private Token _current;
    private Token _peeked;
    private bool _hasPeeked;
    private int _depth;

    private QueryParser(string text)
    {
        _lexer = new QueryLexer(text);
        _current = _lexer.Next();
    }

    /// <exception cref="QueryException">The text is not a query, or exceeds <see cref="QueryLimits"/>.</exception>
    public static ParsedQuery Parse(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        if (text.Length > QueryLimits.MaxTextBytes || Encoding.UTF8.GetByteCount(text) > QueryLimits.MaxTextBytes)
        {
            throw new QueryException(new SourcePosition(0, 1, 1), string.Create(
                CultureInfo.InvariantCulture,
                $"the query is longer than {QueryLimits.MaxTextBytes:N0} bytes (64 KiB)"));
        }

        return new QueryParser(text).ParseQuery();
    }

    private ParsedQuery ParseQuery()
    {
        if (_current.Kind != TokenKind.From)
        {
            throw Expected("'from'");
        }

        Advance();
        var source = ParseSource();
        QueryFilter? where = null;
        IReadOnlyList<GroupByItem> groupBy = [];
        IReadOnlyList<SelectItem> select = [];
        IReadOnlyList<OrderByItem> orderBy = [];
        QueryValue? limit = null;
        QueryValue? offset = null;
        var reached = Clause.Source;
        if (Accept(TokenKind.Where))
        {
            where = ParseOr("after 'where'");
            reached = Clause.Where;
        }

        if (Accept(TokenKind.Group))
        {
            ExpectBy("group");
            groupBy = ParseList(ParseGroupByItem, "after 'by'");
            reached = Clause.GroupBy;
        }

        if (Accept(TokenKind.Select))
        {
            select = ParseList(ParseSelectItem, "after 'select'");
            reached = Clause.Select;
        }

        if (Accept(TokenKind.Order))
        {
            ExpectBy("order");
            orderBy = ParseList(ParseOrderByItem, "after 'by'");
            reached = Clause.OrderBy;
        }

        if (Accept(TokenKind.Limit))
        {
            limit = ParseCount("limit");
            reached = Clause.Limit;
        }

        if (Accept(TokenKind.Offset))
        {
            offset = ParseCount("offset");
            reached = Clause.Offset;
        }

        if (_current.Kind != TokenKind.End)
        {
            throw Expected(WhatMayFollow(reached));
        }

        return new ParsedQuery(source, where, groupBy, select, orderBy, limit, offset);
    }

    private enum Clause
    {
        Source,
        Where,
        GroupBy,
        Select,
        OrderBy,
        Limit,
        Offset,
    }

    private static string WhatMayFollow(Clause reached)
    {
        var options = new List<string>();
        if (reached == Clause.Where)
        {
            options.Add("'and'");
            options.Add("'or'");
        }
        else if (reached is Clause.GroupBy or Clause.Select or Clause.OrderBy)
        {
            options.Add("','");
        }

        (Clause Clause, string Text)[] clauses =
        [
            (Clause.Where, "'where'"), (Clause.GroupBy, "'group by'"), (Clause.Select, "'select'"),
            (Clause.OrderBy, "'order by'"), (Clause.Limit, "'limit'"), (Clause.Offset, "'offset'"),
        ];
        foreach (var (clause, text) in clauses)
        {
            if (clause > reached)
            {
                options.Add(text);
            }
        }

        return options.Count == 0 ? "end of query" : string.Join(", ", options) + " or end of query";
    }

    private QuerySource ParseSource()
    {
        var position = _current.Position;
        if (Accept(TokenKind.Index))
        {
            if (_current.Kind != TokenKind.String)
            {
                throw Expected("the index name as a string after 'index'");
            }

            var name = _current.Value!;
            Advance();
            return new QuerySource(QuerySourceKind.Index, name, position);
        }

        if (_current.Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier)
        {
            var name = _current.Value!;
            Advance();
            return new QuerySource(QuerySourceKind.Collection, name, position);
        }

        throw Expected("a collection name or 'index' after 'from'");
    }

    private void ExpectBy(string keyword)
    {
        if (!Accept(TokenKind.By))
        {
            throw Expected($"'by' after '{keyword}'");
        }
    }

    private List<T> ParseList<T>(Func<string, T> parseItem, string firstContext)
    {
        var items = new List<T> { parseItem(firstContext) };
        while (Accept(TokenKind.Comma))
        {
            items.Add(parseItem("after ','"));
        }

        return items;
    }

    // ---- where ----

    private QueryFilter ParseOr(string context) => ParseChain(TokenKind.Or, context);

    private QueryFilter ParseAnd(string context) => ParseChain(TokenKind.And, context);

    /// <summary>Operands joined by <paramref name="separator"/> (<c>or</c> joins <c>and</c> chains, <c>and</c> joins unary conditions).</summary>
    private QueryFilter ParseChain(TokenKind separator, string context)
    {
        var isAnd = separator == TokenKind.And;
        var first = isAnd ? ParseUnary(context) : ParseAnd(context);
        if (_current.Kind != separator)
        {
            return first;
        }

        var operands = new List<QueryFilter> { first };
        var next = isAnd ? "after 'and'" : "after 'or'";
        while (Accept(separator))
        {
            operands.Add(isAnd ? ParseUnary(next) : ParseAnd(next));
        }

        return Balance(operands, 0, operands.Count, isAnd);
    }

    /// <summary>
    /// A chain <c>a and b and c and d</c> as a balanced tree (left half, right half: the left gets the extra operand),
    /// so its depth is logarithmic. <see cref="QueryFormatter"/> writes such a tree back as the flat chain.
    /// </summary>
    internal static QueryFilter Balance(List<QueryFilter> operands, int start, int end, bool isAnd)
    {
        var count = end - start;
        if (count == 1)
        {
            return operands[start];
        }

        var middle = start + LeftShare(count);
        var left = Balance(operands, start, middle, isAnd);
        var right = Balance(operands, middle, end, isAnd);
        return isAnd ? new AndFilter(left, right, left.Position) : new OrFilter(left, right, left.Position);
    }

    /// <summary>How many of a chain's operands go to the left subtree.</summary>
    internal static int LeftShare(int count) => (count + 1) / 2;

    private QueryFilter ParseUnary(string context)
    {
        var position = _current.Position;
        switch (_current.Kind)
        {
            case TokenKind.Not:
            {
                EnterNesting();
                Advance();
                var operand = ParseUnary("after 'not'");
                _depth--;
                return new NotFilter(operand, position);
            }

            case TokenKind.LeftParen:
            {
                EnterNesting();
                Advance();
                var inner = ParseOr("after '('");
                if (!Accept(TokenKind.RightParen))
                {
                    throw Expected("'and', 'or' or ')'");
                }

                _depth--;
                return inner;
            }

            case TokenKind.Identifier when Peek().Kind == TokenKind.LeftParen:
                switch (FunctionAtCurrent())
                {
                    case QueryFunction.StartsWith:
                    {
                        var (field, value) = ParseFieldAndValueArguments("startsWith");
                        return new StartsWithFilter(field, value, position);
                    }

                    case QueryFunction.Search:
                    {
                        var (field, value) = ParseFieldAndValueArguments("search");
                        return new SearchFilter(field, value, position);
                    }

                    case QueryFunction.Exists:
                    {
                        Advance();
                        Advance();
                        var field = ParseFieldArgument("after 'exists('");
                        ExpectClosingParen();
                        return new ExistsFilter(field, position);
                    }

                    case QueryFunction.Id:
                        return ParseComparison(ParseField());
                    default:
                        throw ExpectedFunctionElsewhere($"a condition {context}");
                }

            case TokenKind.Identifier or TokenKind.QuotedIdentifier:
                return ParseComparison(ParseField());
            default:
                throw Expected($"a condition {context}");
        }
    }

    private void EnterNesting()
    {
        if (++_depth > QueryLimits.MaxDepth)
        {
            throw new QueryException(_current.Position, $"the condition nests deeper than {QueryLimits.MaxDepth} levels of parentheses and 'not'");
        }
    }

    private (FieldRef Field, QueryValue Value) ParseFieldAndValueArguments(string function)
    {
        Advance();
        Advance();
        var field = ParseFieldArgument($"after '{function}('");
        if (!Accept(TokenKind.Comma))
        {
            throw Expected($"',' after the field of '{function}('");
        }

        var value = ParseValue("after ','");
        ExpectClosingParen();
        return (field, value);
    }

    private QueryFilter ParseComparison(FieldRef field)
    {
        ComparisonOperator op;
        switch (_current.Kind)
        {
            case TokenKind.Equal:
                op = ComparisonOperator.Equal;
                break;
            case TokenKind.NotEqual:
                op = ComparisonOperator.NotEqual;
                break;
            case TokenKind.Less:
                op = ComparisonOperator.Less;
                break;
            case TokenKind.LessOrEqual:
                op = ComparisonOperator.LessOrEqual;
                break;
            case TokenKind.Greater:
                op = ComparisonOperator.Greater;
                break;
            case TokenKind.GreaterOrEqual:
                op = ComparisonOperator.GreaterOrEqual;
                break;
            case TokenKind.Between:
            {
                Advance();
                var low = ParseValue("after 'between'");
                if (!Accept(TokenKind.And))
                {
                    throw Expected("'and' after the low end of 'between'");
                }

                var high = ParseValue("after 'and'");
                return new BetweenFilter(field, low, high, field.Position);
            }

            case TokenKind.In:
            {
                Advance();
                if (!Accept(TokenKind.LeftParen))
                {
                    throw Expected("'(' after 'in'");
                }

                return new InFilter(field, ParseValueList("'in'"), field.Position);
            }

            default:
                throw Expected($"an operator (=, !=, <, <=, >, >=, between or in) after '{QueryLexer.Shorten(QueryFormatter.FormatField(field))}'");
        }

        var opText = _lexer.SourceText(_current);
        Advance();
        var value = ParseValue($"after '{opText}'");
        return new ComparisonFilter(field, op, value, field.Position);
    }

    /// <summary>The values of <c>in (...)</c> or <c>ranges(...)</c>, after the opening parenthesis, through the closing one.</summary>
    private List<QueryValue> ParseValueList(string what)
    {
        var values = new List<QueryValue> { ParseValue("after '('") };
        while (true)
        {
            if (Accept(TokenKind.RightParen))
            {
                return values;
            }

            if (!Accept(TokenKind.Comma))
            {
                throw Expected($"',' or ')' in the list of {what}");
            }

            if (values.Count == QueryLimits.MaxListValues)
            {
                throw new QueryException(_current.Position, string.Create(CultureInfo.InvariantCulture, $"more than {QueryLimits.MaxListValues:N0} values in the list of {what}"));
            }

            values.Add(ParseValue("after ','"));
        }
    }

    private QueryValue ParseValue(string context)
    {
        var token = _current;
        QueryValue value = token.Kind switch
        {
            TokenKind.String => new StringValue(token.Value!, token.Position),
            TokenKind.Number => new NumberValue(double.Parse(token.Value!, NumberStyles.Float, CultureInfo.InvariantCulture), token.Value!, token.Position),
            TokenKind.True => new BoolValue(true, token.Position),
            TokenKind.False => new BoolValue(false, token.Position),
            TokenKind.Null => new NullValue(token.Position),
            TokenKind.Parameter => new ParameterValue(token.Value!, token.Position),
            _ => throw Expected($"a value {context}"),
        };
        Advance();
        return value;
    }

    // ---- fields ----

    /// <summary>A field where a function's argument is expected.</summary>
    private FieldRef ParseFieldArgument(string context)
    {
        if (_current.Kind == TokenKind.Identifier && Peek().Kind == TokenKind.LeftParen && FunctionAtCurrent() != QueryFunction.Id)
        {
            throw ExpectedFunctionElsewhere($"a field {context}");
        }

        if (_current.Kind is not (TokenKind.Identifier or TokenKind.QuotedIdentifier))
        {
            throw Expected($"a field {context}");
        }

        return ParseField();
    }

    /// <summary>At an identifier or quoted identifier (or <c>id(</c>): a field path, or the document id.</summary>
    private FieldRef ParseField()
    {
        var position = _current.Position;
        if (_current.Kind == TokenKind.Identifier && _current.Value!.Equals("id", StringComparison.OrdinalIgnoreCase))
        {
            var next = Peek().Kind;
            if (next == TokenKind.LeftParen)
            {
                Advance();
                Advance();
                if (!Accept(TokenKind.RightParen))
                {
                    throw Expected("')' after 'id('");
                }

                return new FieldRef(QueryFormatter.DocumentIdPath, true, position);
            }

            if (next is not (TokenKind.Dot or TokenKind.LeftBracket))
            {
                Advance();
                return new FieldRef(QueryFormatter.DocumentIdPath, true, position);
            }
        }

        var path = new StringBuilder();
        var steps = 0;
        while (true)
        {
            // A keyword after '.' is a name: 'Customer.Order' is unambiguous.
            var name = _current.Value ?? _lexer.SourceText(_current);
            FieldPathSyntax.AppendName(path, name);
            steps++;
            Advance();
            while (Accept(TokenKind.LeftBracket))
            {
                if (!Accept(TokenKind.RightBracket))
                {
                    throw Expected("']' after '['");
                }

                path.Append("[]");
                steps++;
            }

            if (steps > MaxPathSteps)
            {
                throw new QueryException(position, $"the field path has more than {MaxPathSteps} steps");
            }

            if (!Accept(TokenKind.Dot))
            {
                return new FieldRef(path.ToString(), false, position);
            }

            if (_current.Kind is not (TokenKind.Identifier or TokenKind.QuotedIdentifier) && !_current.IsKeyword)
            {
                throw Expected("a field name after '.'");
            }

            path.Append('.');
        }
    }

    /// <summary>As the index path compiler allows (JsonPathCompiler.MaxSteps): names and <c>[]</c> each count.</summary>
    private const int MaxPathSteps = 64;

    // ---- group by, select, order by ----

    private GroupByItem ParseGroupByItem(string context)
    {
        var position = _current.Position;
        if (_current.Kind == TokenKind.Identifier && Peek().Kind == TokenKind.LeftParen)
        {
            switch (FunctionAtCurrent())
            {
                case QueryFunction.Time:
                {
                    var (field, interval) = ParseFieldAndValueArguments("time");
                    return new TimeGroupBy(field, interval, position);
                }

                case QueryFunction.Id:
                    return new FieldGroupBy(ParseField(), position);
                default:
                    throw ExpectedFunctionElsewhere($"a field or time(field, interval) {context}");
            }
        }

        if (_current.Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier)
        {
            return new FieldGroupBy(ParseField(), position);
        }

        throw Expected($"a field or time(field, interval) {context}");
    }

    private SelectItem ParseSelectItem(string context)
    {
        var position = _current.Position;
        SelectItem item;
        if (_current.Kind == TokenKind.Identifier && Peek().Kind == TokenKind.LeftParen)
        {
            var function = FunctionAtCurrent();
            switch (function)
            {
                case QueryFunction.Count or QueryFunction.Sum or QueryFunction.Avg or QueryFunction.Min or QueryFunction.Max:
                    item = ParseAggregate(function);
                    break;
                case QueryFunction.Facet:
                    item = ParseFacet();
                    break;
                case QueryFunction.Id:
                    item = FieldItem(ParseField());
                    break;
                default:
                    throw ExpectedFunctionElsewhere($"a field, an aggregate or a facet {context}");
            }
        }
        else if (_current.Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier)
        {
            item = FieldItem(ParseField());
        }
        else
        {
            throw Expected($"a field, an aggregate or a facet {context}");
        }

        if (Accept(TokenKind.As))
        {
            if (_current.Kind is not (TokenKind.Identifier or TokenKind.QuotedIdentifier or TokenKind.String))
            {
                throw Expected("a name after 'as'");
            }

            if (_current.Value!.Length == 0)
            {
                throw new QueryException(_current.Position, "empty name after 'as'");
            }

            item = item with { Name = _current.Value! };
            Advance();
        }

        return item;

        static FieldSelect FieldItem(FieldRef field) => new(field, QueryFormatter.DefaultName(field), field.Position);
    }

    private AggregateSelect ParseAggregate(QueryFunction function)
    {
        var position = _current.Position;
        var name = QueryFunctions.Name(function);
        Advance();
        Advance();
        FieldRef? field = null;
        if (function != QueryFunction.Count || _current.Kind != TokenKind.RightParen)
        {
            field = ParseFieldArgument(function == QueryFunction.Count ? "or ')' after 'count('" : $"after '{name}('");
        }

        ExpectClosingParen();
        var aggregate = function switch
        {
            QueryFunction.Count => AggregateFunction.Count,
            QueryFunction.Sum => AggregateFunction.Sum,
            QueryFunction.Avg => AggregateFunction.Avg,
            QueryFunction.Min => AggregateFunction.Min,
            _ => AggregateFunction.Max,
        };
        return new AggregateSelect(aggregate, field, QueryFormatter.FormatAggregate(aggregate, field), position);
    }

    private FacetSelect ParseFacet()
    {
        var position = _current.Position;
        Advance();
        Advance();
        var field = ParseFieldArgument("after 'facet('");
        IReadOnlyList<QueryValue> ranges = [];
        if (Accept(TokenKind.Comma))
        {
            if (_current.Kind != TokenKind.Identifier || Peek().Kind != TokenKind.LeftParen || FunctionAtCurrent() != QueryFunction.Ranges)
            {
                throw Expected("'ranges(' after ',' in 'facet('");
            }

            Advance();
            Advance();
            ranges = ParseValueList("'ranges'");
        }

        ExpectClosingParen();
        return new FacetSelect(field, ranges, QueryFormatter.FormatFacet(field, ranges), position);
    }

    private OrderByItem ParseOrderByItem(string context)
    {
        var position = _current.Position;
        FieldRef? field = null;
        AggregateSelect? aggregate = null;
        if (_current.Kind == TokenKind.Identifier && Peek().Kind == TokenKind.LeftParen)
        {
            var function = FunctionAtCurrent();
            switch (function)
            {
                case QueryFunction.Count or QueryFunction.Sum or QueryFunction.Avg or QueryFunction.Min or QueryFunction.Max:
                    aggregate = ParseAggregate(function);
                    break;
                case QueryFunction.Id:
                    field = ParseField();
                    break;
                default:
                    throw ExpectedFunctionElsewhere($"a field or an aggregate {context}");
            }
        }
        else if (_current.Kind is TokenKind.Identifier or TokenKind.QuotedIdentifier)
        {
            field = ParseField();
        }
        else
        {
            throw Expected($"a field or an aggregate {context}");
        }

        var type = OrderByType.Default;
        if (Accept(TokenKind.As))
        {
            var word = _current.Kind == TokenKind.Identifier ? _current.Value! : "";
            if (word.Equals("number", StringComparison.OrdinalIgnoreCase))
            {
                type = OrderByType.Number;
            }
            else if (word.Equals("string", StringComparison.OrdinalIgnoreCase))
            {
                type = OrderByType.String;
            }
            else
            {
                throw Expected("'number' or 'string' after 'as'");
            }

            Advance();
        }

        var descending = false;
        if (Accept(TokenKind.Desc))
        {
            descending = true;
        }
        else
        {
            Accept(TokenKind.Asc);
        }

        return new OrderByItem(field, aggregate, descending, type, position);
    }

    private QueryValue ParseCount(string keyword)
    {
        var token = _current;
        if (token.Kind == TokenKind.Parameter)
        {
            Advance();
            return new ParameterValue(token.Value!, token.Position);
        }

        if (token.Kind == TokenKind.Number && IsAllDigits(token.Value!))
        {
            Advance();
            return new NumberValue(double.Parse(token.Value!, NumberStyles.Float, CultureInfo.InvariantCulture), token.Value!, token.Position);
        }

        throw Expected($"a non-negative integer or a parameter after '{keyword}'");
    }

    private static bool IsAllDigits(string text)
    {
        foreach (var c in text)
        {
            if (c is < '0' or > '9')
            {
                return false;
            }
        }

        return true;
    }

    // ---- tokens and errors ----

    private void Advance()
    {
        if (_hasPeeked)
        {
            _current = _peeked;
            _hasPeeked = false;
        }
        else
        {
            _current = _lexer.Next();
        }
    }

    private Token Peek()
    {
        if (!_hasPeeked)
        {
            _peeked = _lexer.Next();
            _hasPeeked = true;
        }

        return _peeked;
    }

    private bool Accept(TokenKind kind)
    {
        if (_current.Kind != kind)
        {
            return false;
        }

        Advance();
        return true;
    }

    private void ExpectClosingParen()
    {
        if (!Accept(TokenKind.RightParen))
        {
            throw Expected("')'");
        }
    }

    /// <summary>The function named at the current identifier (followed by '('); throws for an unknown one.</summary>
    private QueryFunction FunctionAtCurrent()
    {
        var function = QueryFunctions.Classify(_current.Value!);
        if (function == QueryFunction.None)
        {
            throw new QueryException(_current.Position, $"unknown function '{QueryLexer.Shorten(_current.Value!)}'; expected one of {QueryFunctions.Known}");
        }

        return function;
    }

    private QueryException Expected(string what) => new(_current.Position, $"expected {what} but found {Describe(_current)}");

    private QueryException ExpectedFunctionElsewhere(string what) =>
        new(_current.Position, $"expected {what} but found function '{QueryFunctions.Name(QueryFunctions.Classify(_current.Value!))}'");

    private string Describe(Token token) => token.Kind switch
    {
        TokenKind.End => "end of query",
        TokenKind.String => _lexer.SourceText(token),
        _ => $"'{_lexer.SourceText(token)}'",
    };
}
