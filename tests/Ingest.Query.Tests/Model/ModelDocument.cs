using System.Text.Json;

namespace Ingest.Query.Tests.Model;

/// <summary>A document of the model: its id, its position in index entry order (the order it was written) and its JSON.</summary>
internal sealed record ModelDocument(string Id, int EntryOrder, string Json, JsonElement Root);
