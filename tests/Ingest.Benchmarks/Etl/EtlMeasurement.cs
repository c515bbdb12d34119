namespace Ingest.Benchmarks.Etl;

/// <summary>
/// Messages sent and acknowledged, the JSON bytes they carried (the stored documents'), how long it
/// took, and the CPU time this process spent meanwhile (all its threads, the broker client's
/// included; not the broker's): on a shared machine the CPU per message moves far less with the
/// neighbours' load than the rate does.
/// </summary>
internal sealed record EtlMeasurement(long Messages, long Bytes, TimeSpan Elapsed)
{
    /// <summary>This process's CPU time over the run, when measured.</summary>
    public TimeSpan? Cpu { get; init; }

    /// <summary>Microseconds of this process's CPU per message, when measured.</summary>
    public double? CpuMicrosecondsPerMessage => Cpu is { } cpu && Messages > 0 ? cpu.TotalMicroseconds / Messages : null;

    public double MessagesPerSecond => Messages / Elapsed.TotalSeconds;

    public double MegabytesPerSecond => Bytes / 1e6 / Elapsed.TotalSeconds;
}
