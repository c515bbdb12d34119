namespace Ingest.Benchmarks.Queries;

/// <summary>One thread's way to run a workload's query; not shared between threads.</summary>
internal interface IQuerySession : IDisposable
{
    /// <summary>
    /// Runs the workload's query the way <paramref name="row"/> (one of <see cref="IQuerySystem.Rows"/>) answers it, to
    /// its last result row, and returns a checksum of what it read (the total and the rows), so nothing is skipped.
    /// </summary>
    long Run(QueryWorkload workload, string row);
}
