namespace Ingest.Query.Syntax;

public enum QuerySourceKind
{
    /// <summary><c>from Orders</c>: answered by an index covering the fields (a static one or an automatic one).</summary>
    Collection,

    /// <summary><c>from index 'Orders/ByCustomer'</c>: answered by that index only.</summary>
    Index,
}
