using Ingest.Server.Batching;

namespace Ingest.Server.Sources;

/// <summary>
/// A batch queued in the store by the <see cref="BatchWriter"/>, not yet acknowledged: its items,
/// which of the writer's two write batches holds it, the store's task (null when it was not
/// queued: nothing to write, or refused at once) and when it was queued.
/// </summary>
internal sealed record InFlight(Batch<IngestItem> Batch, int Slot, Task<Documents.WriteResult>? Commit, BatchCounts Counts, long Started);
