namespace Ingest.Indexing.Definitions;

/// <summary>The JSON wire form of a definition: <c>{"name":"Orders/ByStatus","collections":["Orders"],"fields":[{"name":"Status","path":"Status","type":"keyword"}]}</c>.</summary>
internal sealed class IndexDefinitionBody
{
    public string? Name { get; set; }

    public List<string?>? Collections { get; set; }

    public List<IndexFieldBody?>? Fields { get; set; }

    /// <summary>Only in a map-reduce index's definition.</summary>
    public ReduceBody? Reduce { get; set; }
}
