using System.Text.Json;

namespace Ingest.Query.Tests.Model;

/// <summary>
/// A document of the model: its id, its place in index entry order (the order it was first written), its place in etag
/// order (the order of its last write: a collection scan's order) and its JSON.
/// </summary>
internal sealed record ModelDocument(string Id, int EntryOrder, string Json, JsonElement Root)
{
    public int EtagOrder { get; init; } = EntryOrder;
}
