namespace Ingest.Query.Syntax;

/// <summary>
/// One item of <c>select</c>. <see cref="Name"/> is the result column's name: the alias after <c>as</c>, else the
/// item's canonical text (<c>Total</c>, <c>Customer.Name</c>, <c>count()</c>, <c>sum(Total)</c>, <c>facet(Status)</c>).
/// </summary>
public abstract record SelectItem(string Name, SourcePosition Position);
