namespace Ingest.Benchmarks.Lifecycle;

/// <summary>One measured cell: a JSON record and a table row.</summary>
/// <param name="Workload">The JSON workload name, e.g. <c>compress-orders</c>.</param>
/// <param name="System">The JSON system name, e.g. <c>ingest-uncompressed</c>.</param>
/// <param name="OpsPerSec">The rate, when the cell measures one (puts/s, deletes/s, docs/s).</param>
/// <param name="Value">The other figure, when the cell has one (bytes per document, a ratio of bytes).</param>
/// <param name="Unit">What <paramref name="OpsPerSec"/> and <paramref name="Value"/> count, for the table.</param>
/// <param name="Note">Anything a reader must know to trust the figure (what was sampled, what was counted).</param>
internal sealed record LifecycleRow(
    string Workload,
    string System,
    double? OpsPerSec,
    double? Value,
    string Unit,
    string? Note = null);
