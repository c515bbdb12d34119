using System.Text.Json.Serialization;

namespace Ingest.Benchmarks.Reporting;

[JsonSourceGenerationOptions(
    WriteIndented = true,
    PropertyNamingPolicy = JsonKnownNamingPolicy.CamelCase,
    DefaultIgnoreCondition = JsonIgnoreCondition.WhenWritingNull)]
[JsonSerializable(typeof(List<BenchmarkRecord>))]
internal sealed partial class BenchmarkJsonContext : JsonSerializerContext;
