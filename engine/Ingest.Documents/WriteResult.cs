namespace Ingest.Documents;

/// <summary>What a committed batch was given.</summary>
/// <param name="FirstEtag">The etag of its first put or delete, 0 if it had none that changed anything.</param>
/// <param name="LastEtag">The etag of its last put or delete, 0 likewise.</param>
/// <param name="TransactionId">The storage transaction it committed in (shared with other batches under group commit).</param>
public readonly record struct WriteResult(long FirstEtag, long LastEtag, long TransactionId);
