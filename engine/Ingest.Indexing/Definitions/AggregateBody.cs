namespace Ingest.Indexing.Definitions;

/// <summary>An aggregate as JSON carries it: <c>{"name":"Revenue","function":"sum","field":"Total"}</c>.</summary>
internal sealed class AggregateBody
{
    public string? Name { get; set; }

    public string? Function { get; set; }

    public string? Field { get; set; }
}
