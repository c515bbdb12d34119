namespace Ingest.Contracts.Http;

/// <summary>One field of an index definition, as <c>PUT /indexes/{name}</c> takes it and <c>GET /indexes/{name}</c> shows it.</summary>
/// <param name="Name">The field's name in queries.</param>
/// <param name="Path">The JSON path its values come from (<c>Customer.Name</c>, <c>Lines[].Sku</c>, <c>Tags[]</c>).</param>
/// <param name="Type">"keyword", "text", "number", "datetime" or "bool".</param>
/// <param name="ExactCase">Keyword fields only: match case exactly instead of case-insensitively.</param>
public sealed record IndexFieldEntry(string Name, string Path, string Type, bool ExactCase = false);
