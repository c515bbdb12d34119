using System.Text.Encodings.Web;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace Ingest.Server.Etl;

/// <summary>Source-generated JSON for ETL definitions, state files and HTTP bodies (camelCase).</summary>
[JsonSourceGenerationOptions(PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase, UseStringEnumConverter = true)]
[JsonSerializable(typeof(EtlTaskDefinition))]
[JsonSerializable(typeof(List<EtlTaskDefinition>))]
[JsonSerializable(typeof(List<EtlError>))]
[JsonSerializable(typeof(EtlTaskView))]
[JsonSerializable(typeof(List<EtlTaskView>))]
[JsonSerializable(typeof(EtlErrorPage))]
[JsonSerializable(typeof(EtlRetryResponse))]
[JsonSerializable(typeof(EtlProgressRecord))]
[JsonSerializable(typeof(Dictionary<string, List<Ingest.Documents.LogPosition>>))]
internal sealed partial class EtlJsonContext : JsonSerializerContext
{
    /// <summary>For HTTP answers: scripts read as written (<c>&lt;</c> and quotes unescaped); the body is JSON, never embedded in HTML.</summary>
    public static EtlJsonContext Http { get; } = new(new JsonSerializerOptions
    {
        PropertyNamingPolicy = JsonNamingPolicy.CamelCase,
        Converters = { new JsonStringEnumConverter() },
        Encoder = JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
    });
}
