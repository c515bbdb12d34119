namespace Ingest.Benchmarks.Etl;

/// <summary>Messages sent and acknowledged, the JSON bytes they carried (the stored documents'), and how long it took.</summary>
internal sealed record EtlMeasurement(long Messages, long Bytes, TimeSpan Elapsed)
{
    public double MessagesPerSecond => Messages / Elapsed.TotalSeconds;

    public double MegabytesPerSecond => Bytes / 1e6 / Elapsed.TotalSeconds;
}
