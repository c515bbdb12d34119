namespace Ingest.Benchmarks.Budgets;

/// <summary>What one path allocated per operation in a budgets run.</summary>
/// <param name="Path">The path's name, as in the budgets file.</param>
/// <param name="BytesPerOp">Bytes allocated per operation (the smallest figure of the measured rounds).</param>
/// <param name="HighestBytesPerOp">The largest figure of the measured rounds: how much the rounds spread.</param>
/// <param name="Operation">What one operation is, e.g. "commit" or "document".</param>
/// <param name="Counter">Which allocation counter measured it: "thread" or "process".</param>
internal sealed record AllocationMeasurement(string Path, double BytesPerOp, double HighestBytesPerOp, string Operation, string Counter);
