namespace Ingest.Benchmarks.Documents;

internal sealed record DocumentsOptions
{
    public const int DefaultSeed = 20_250_401;

    public bool Quick { get; init; }

    public string? JsonPath { get; init; }

    /// <summary>Each system gets a fresh directory under this one, deleted after its run.</summary>
    public string BaseDirectory { get; init; } = Path.GetTempPath();

    /// <summary>Names of the systems to run; empty means all.</summary>
    public IReadOnlySet<string> Systems { get; init; } = new HashSet<string>();

    /// <summary>Names of the workloads to run; empty means all.</summary>
    public IReadOnlySet<string> Workloads { get; init; } = new HashSet<string>();

    public int Seed { get; init; } = DefaultSeed;

    public DocumentsSizes Sizes => Quick ? DocumentsSizes.Quick : DocumentsSizes.Full;
}
