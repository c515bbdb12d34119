using System.Text.Json.Serialization;

namespace Ingest.Contracts.Http;

/// <summary>
/// A JSON value carried as its UTF-8 text and embedded as is when serialized: a stored document
/// goes out byte for byte, without being parsed and written again.
/// </summary>
/// <param name="Utf8">The JSON text; empty means null.</param>
[JsonConverter(typeof(RawJsonConverter))]
public readonly record struct RawJson(ReadOnlyMemory<byte> Utf8)
{
    public bool IsEmpty => Utf8.IsEmpty;
}
