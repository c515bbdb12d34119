using Ingest.Benchmarks.Storage.Workloads;

namespace Ingest.Benchmarks.Documents;

/// <summary>One row of the documents benchmark.</summary>
internal sealed record DocumentWorkload(string Name, string Unit, string Target, Func<IDocumentSystem, OrderDataset, DocumentsSizes, WorkloadMeasurement> Run)
{
    public override string ToString() => Name;
}
