using Ingest.Indexing.Storage;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// A collection scan's condition: only the document id can be tested without an index (<c>id() = 'orders/1'</c>,
/// <c>in</c>, <c>!=</c>, <c>startsWith</c>, with and/or/not). Ids compare folded as the store folds them.
/// </summary>
internal abstract class IdPredicate
{
    /// <summary>Whether a document id, folded (the store's id key), matches.</summary>
    public abstract bool Matches(ReadOnlySpan<byte> foldedId);

    public static IdPredicate Bind(QueryFilter filter, QueryParameters parameters, string collection) => filter switch
    {
        AndFilter and => new Combined(Bind(and.Left, parameters, collection), Bind(and.Right, parameters, collection), IsAnd: true),
        OrFilter or => new Combined(Bind(or.Left, parameters, collection), Bind(or.Right, parameters, collection), IsAnd: false),
        NotFilter not => new Negated(Bind(not.Operand, parameters, collection)),
        ExistsFilter e when e.Field.IsDocumentId => new AnyOf([], Always: true),
        ComparisonFilter { Field.IsDocumentId: true, Operator: ComparisonOperator.Equal } c => Values([c.Value], parameters, c.Field),
        ComparisonFilter { Field.IsDocumentId: true, Operator: ComparisonOperator.NotEqual } c => new Negated(Values([c.Value], parameters, c.Field)),
        InFilter { Field.IsDocumentId: true } i => Values(i.Values, parameters, i.Field),
        StartsWithFilter { Field.IsDocumentId: true } s => new Prefix(Fold(ValueBinder.ExpectString(parameters.Resolve(s.Prefix), Id(s.Field)))),
        ComparisonFilter { Field.IsDocumentId: true } c => throw new QueryException(c.Position, "id() can be compared with =, !=, in and startsWith"),
        _ => throw new QueryException(filter.Position, $"this condition needs an index; a collection scan (collection/{collection}) can only test id()"),
    };

    private static IdPredicate Values(IReadOnlyList<QueryValue> values, QueryParameters parameters, FieldRef field)
    {
        var folded = new List<byte[]>();
        foreach (var value in parameters.ResolveList(values))
        {
            if (value is not NullValue)
            {
                folded.Add(Fold(ValueBinder.ExpectString(value, Id(field))));
            }
        }

        return new AnyOf(folded, Always: false);
    }

    private static BoundField Id(FieldRef field) => new(field, -1, null);

    private static byte[] Fold(string id)
    {
        var buffer = new byte[(id.Length * 3) + 8];
        var length = IndexDocumentKey.Write(id, buffer);
        return length < 0 ? [] : buffer[..length];
    }

    private sealed class AnyOf(List<byte[]> ids, bool Always) : IdPredicate
    {
        public override bool Matches(ReadOnlySpan<byte> foldedId)
        {
            if (Always)
            {
                return true;
            }

            foreach (var id in ids)
            {
                if (id.Length > 0 && foldedId.SequenceEqual(id))
                {
                    return true;
                }
            }

            return false;
        }
    }

    private sealed class Prefix(byte[] prefix) : IdPredicate
    {
        public override bool Matches(ReadOnlySpan<byte> foldedId) => foldedId.StartsWith(prefix);
    }

    private sealed class Negated(IdPredicate operand) : IdPredicate
    {
        public override bool Matches(ReadOnlySpan<byte> foldedId) => !operand.Matches(foldedId);
    }

    private sealed class Combined(IdPredicate left, IdPredicate right, bool IsAnd) : IdPredicate
    {
        public override bool Matches(ReadOnlySpan<byte> foldedId) =>
            IsAnd ? left.Matches(foldedId) && right.Matches(foldedId) : left.Matches(foldedId) || right.Matches(foldedId);
    }
}
