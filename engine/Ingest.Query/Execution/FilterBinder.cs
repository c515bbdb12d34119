using Ingest.Indexing.Definitions;
using Ingest.Indexing.Paths;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// Binds a <c>where</c> condition to reads of the index (engine/Ingest.Query/Execution/README.md, "Binding"): <c>F = null</c> reads
/// the nulls, <c>F != null</c> is exists, <c>F != v</c> is <c>not F = v</c>, ranges become term ranges [from, to)
/// (an exclusive low or inclusive high end appends a 0 byte: the next key in byte order), and nested and/or flatten.
/// </summary>
internal static class FilterBinder
{
    private const int MaxDepth = 256;

    public static FilterNode Bind(QueryFilter filter, IndexDefinition definition, QueryParameters parameters) =>
        Bind(filter, definition, parameters, 0);

    private static FilterNode Bind(QueryFilter filter, IndexDefinition definition, QueryParameters parameters, int depth)
    {
        if (depth > MaxDepth)
        {
            throw new QueryException(filter.Position, $"the condition is nested more than {MaxDepth} levels deep");
        }

        switch (filter)
        {
            case AndFilter:
            {
                var positives = new List<FilterNode>();
                var negatives = new List<FilterNode>();
                foreach (var operand in Flatten(filter, isAnd: true))
                {
                    if (operand is NotFilter not)
                    {
                        negatives.Add(Bind(not.Operand, definition, parameters, depth + 1));
                    }
                    else
                    {
                        var bound = Bind(operand, definition, parameters, depth + 1);
                        if (bound is AndFilterNode { Positives.Count: 0, Negatives.Count: 1 } complement)
                        {
                            negatives.Add(complement.Negatives[0]); // F != v is "all minus F = v": subtract F = v here instead
                            continue;
                        }

                        positives.Add(bound);
                    }
                }

                return new AndFilterNode(positives, negatives);
            }

            case OrFilter:
            {
                var operands = new List<FilterNode>();
                foreach (var operand in Flatten(filter, isAnd: false))
                {
                    operands.Add(Bind(operand, definition, parameters, depth + 1));
                }

                return new OrFilterNode(operands);
            }

            case NotFilter not:
                return Not(Bind(not.Operand, definition, parameters, depth + 1));
            case ComparisonFilter c:
                return Comparison(c, FieldBinder.Bind(c.Field, definition), parameters);
            case BetweenFilter b:
                return Between(b, FieldBinder.Bind(b.Field, definition), parameters);
            case InFilter i:
                return In(i, FieldBinder.Bind(i.Field, definition), parameters);
            case StartsWithFilter s:
                return StartsWith(s, FieldBinder.Bind(s.Field, definition), parameters);
            case SearchFilter s:
                return Search(s, FieldBinder.Bind(s.Field, definition), parameters);
            case ExistsFilter e:
            {
                var field = FieldBinder.Bind(e.Field, definition);
                return field.IsDocumentId
                    ? new LeafFilter(LeafKind.All, -1, "every entry (every document has an id)")
                    : new LeafFilter(LeafKind.Exists, field.Ordinal, $"exists({field.Name})");
            }

            default:
                throw new QueryException(filter.Position, $"unsupported condition {filter.GetType().Name}");
        }
    }

    private static FilterNode Not(FilterNode operand) => new AndFilterNode([], [operand]);

    private static List<QueryFilter> Flatten(QueryFilter filter, bool isAnd)
    {
        var result = new List<QueryFilter>();
        var stack = new Stack<QueryFilter>();
        stack.Push(filter);
        while (stack.Count > 0)
        {
            var f = stack.Pop();
            if (isAnd && f is AndFilter and)
            {
                stack.Push(and.Right);
                stack.Push(and.Left);
            }
            else if (!isAnd && f is OrFilter or)
            {
                stack.Push(or.Right);
                stack.Push(or.Left);
            }
            else
            {
                result.Add(f);
            }
        }

        return result;
    }

    private static FilterNode Comparison(ComparisonFilter c, BoundField field, QueryParameters parameters)
    {
        var value = parameters.Resolve(c.Value);
        var op = Symbol(c.Operator);
        if (value is NullValue)
        {
            return c.Operator switch
            {
                ComparisonOperator.Equal when field.IsDocumentId => Ids(field, []),
                ComparisonOperator.NotEqual when field.IsDocumentId => new LeafFilter(LeafKind.All, -1, "every entry (every document has an id)"),
                ComparisonOperator.Equal => new LeafFilter(LeafKind.Nulls, field.Ordinal, $"{field.Name} = null (missing or null)"),
                ComparisonOperator.NotEqual => new LeafFilter(LeafKind.Exists, field.Ordinal, $"exists({field.Name})"),
                _ => throw new QueryException(value.Position, $"null can only be compared with = or != but found '{op}'"),
            };
        }

        if (field.IsDocumentId)
        {
            var id = ValueBinder.ExpectString(value, field);
            return c.Operator switch
            {
                ComparisonOperator.Equal => Ids(field, [id]),
                ComparisonOperator.NotEqual => Not(Ids(field, [id])),
                _ => throw new QueryException(c.Position, $"id() can be compared with =, !=, in and startsWith but not '{op}'"),
            };
        }

        RejectText(field, c.Position, op);
        var term = ValueBinder.EncodeTerm(value, field);
        var text = $"{field.Name} {op} {LiteralText.Describe(value)}";
        return c.Operator switch
        {
            ComparisonOperator.Equal => new LeafFilter(LeafKind.Lookup, field.Ordinal, text) { Terms = [term] },
            ComparisonOperator.NotEqual => Not(new LeafFilter(LeafKind.Lookup, field.Ordinal, $"{field.Name} = {LiteralText.Describe(value)}") { Terms = [term] }),
            ComparisonOperator.Less => new LeafFilter(LeafKind.Range, field.Ordinal, text) { From = [], To = term, SingleValues = HasColumnOfOneValue(field) },
            ComparisonOperator.LessOrEqual => new LeafFilter(LeafKind.Range, field.Ordinal, text) { From = [], To = Successor(term), SingleValues = HasColumnOfOneValue(field) },
            ComparisonOperator.Greater => new LeafFilter(LeafKind.Range, field.Ordinal, text) { From = Successor(term), SingleValues = HasColumnOfOneValue(field) },
            ComparisonOperator.GreaterOrEqual => new LeafFilter(LeafKind.Range, field.Ordinal, text) { From = term, SingleValues = HasColumnOfOneValue(field) },
            _ => throw new QueryException(c.Position, $"unsupported operator '{op}'"),
        };
    }

    /// <summary>
    /// A field whose path visits no array (<c>Total</c>, not <c>Lines[].Price</c>): each entry holds at most one of its
    /// terms (for a number or datetime, also its column value), so a term walk in order need not check which term is an
    /// entry's sort key.
    /// </summary>
    internal static bool HoldsOneValue(BoundField field) =>
        field.Definition != null && JsonPathCompiler.TryCompile(field.Definition.Path, out var path, out _) && !path.Steps.Any(s => s.Kind == JsonPathStepKind.Elements);

    /// <summary>A number or datetime field holding one value per entry: a range over it may read its column instead of its terms.</summary>
    private static bool HasColumnOfOneValue(BoundField field) =>
        field.Type is IndexFieldType.Number or IndexFieldType.DateTime && HoldsOneValue(field);

    private static FilterNode Between(BetweenFilter b, BoundField field, QueryParameters parameters)
    {
        var low = parameters.Resolve(b.Low);
        var high = parameters.Resolve(b.High);
        foreach (var end in (ReadOnlySpan<QueryValue>)[low, high])
        {
            if (end is NullValue)
            {
                throw new QueryException(end.Position, "between takes two values, not null");
            }
        }

        if (field.IsDocumentId)
        {
            throw new QueryException(b.Position, "id() can be compared with =, !=, in and startsWith but not 'between'");
        }

        RejectText(field, b.Position, "between");
        return new LeafFilter(LeafKind.Range, field.Ordinal, $"{field.Name} between {LiteralText.Describe(low)} and {LiteralText.Describe(high)}")
        {
            From = ValueBinder.EncodeTerm(low, field),
            To = Successor(ValueBinder.EncodeTerm(high, field)),
            SingleValues = HasColumnOfOneValue(field),
        };
    }

    private static FilterNode In(InFilter i, BoundField field, QueryParameters parameters)
    {
        var values = parameters.ResolveList(i.Values);
        var hasNull = false;
        var terms = new List<byte[]>(values.Count);
        var ids = new List<string>();
        if (!field.IsDocumentId)
        {
            RejectText(field, i.Position, "in");
        }

        foreach (var value in values)
        {
            if (value is NullValue)
            {
                hasNull = true;
            }
            else if (field.IsDocumentId)
            {
                ids.Add(ValueBinder.ExpectString(value, field));
            }
            else
            {
                terms.Add(ValueBinder.EncodeTerm(value, field));
            }
        }

        if (field.IsDocumentId)
        {
            return Ids(field, ids);
        }

        FilterNode lookup = new LeafFilter(LeafKind.Lookup, field.Ordinal, $"{field.Name} in ({values.Count} values)") { Terms = terms };
        return hasNull ? new OrFilterNode([lookup, new LeafFilter(LeafKind.Nulls, field.Ordinal, $"{field.Name} = null (missing or null)")]) : lookup;
    }

    private static FilterNode StartsWith(StartsWithFilter s, BoundField field, QueryParameters parameters)
    {
        var prefix = ValueBinder.ExpectString(parameters.Resolve(s.Prefix), field);
        if (field.IsDocumentId)
        {
            return new LeafFilter(LeafKind.IdPrefix, -1, $"startsWith(id(), '{prefix}')") { Ids = [prefix] };
        }

        if (field.Type != IndexFieldType.Keyword)
        {
            throw new QueryException(s.Field.Position, $"startsWith needs a keyword field but '{field.Name}' is a {LiteralText.TypeName(field.Type)}");
        }

        return new LeafFilter(LeafKind.Prefix, field.Ordinal, $"startsWith({field.Name}, '{prefix}')")
        {
            From = ValueBinder.EncodeKeyword(prefix, field.Definition!.ExactCase),
        };
    }

    private static FilterNode Search(SearchFilter s, BoundField field, QueryParameters parameters)
    {
        if (field.Type != IndexFieldType.Text || field.IsDocumentId)
        {
            throw new QueryException(s.Field.Position, $"search needs a text field but '{field.Name}' is {(field.IsDocumentId ? "the document id" : "a " + LiteralText.TypeName(field.Type))}");
        }

        var words = ValueBinder.Tokenize(ValueBinder.ExpectString(parameters.Resolve(s.Words), field));
        return new LeafFilter(LeafKind.Lookup, field.Ordinal, $"search({field.Name}): any of {words.Count} words") { Terms = words };
    }

    private static LeafFilter Ids(BoundField field, List<string> ids) =>
        new(LeafKind.Ids, -1, $"{field.Name} in ({ids.Count} ids)") { Ids = ids };

    private static void RejectText(BoundField field, SourcePosition position, string op)
    {
        if (field.Type == IndexFieldType.Text)
        {
            throw new QueryException(position, $"field '{field.Name}' is a text field, matched by its words: use search({field.Name}, '...') instead of '{op}'");
        }
    }

    /// <summary>The first key after <paramref name="term"/> in byte order: the term with a 0 byte appended.</summary>
    private static byte[] Successor(byte[] term) => [.. term, 0];

    private static string Symbol(ComparisonOperator op) => op switch
    {
        ComparisonOperator.Equal => "=",
        ComparisonOperator.NotEqual => "!=",
        ComparisonOperator.Less => "<",
        ComparisonOperator.LessOrEqual => "<=",
        ComparisonOperator.Greater => ">",
        _ => ">=",
    };
}
