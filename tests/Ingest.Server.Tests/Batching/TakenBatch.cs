using Ingest.Server.Batching;

namespace Ingest.Server.Tests.Batching;

/// <summary>A copy of a batch's contents, kept after the batch went back to its pool.</summary>
internal sealed record TakenBatch<T>(BatchCloseReason Reason, T[] Items, long Bytes, TimeSpan FirstItemAge)
{
    public static TakenBatch<T> Copy(Batch<T> batch) =>
        new(batch.CloseReason, batch.Items.ToArray(), batch.Bytes, batch.FirstItemAge);
}
