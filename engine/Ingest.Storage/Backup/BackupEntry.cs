namespace Ingest.Storage.Backup;

/// <summary>One restored entry: an environment (its snapshot's transaction and the pages it holds) or a plain file.</summary>
/// <param name="Path">Relative to the restored directory, '/'-separated.</param>
/// <param name="TransactionId">The environment's snapshot; -1 for a file.</param>
/// <param name="Pages">Pages restored; 0 for a file.</param>
/// <param name="Bytes">An environment: bytes it occupied in the backup; a file: its length.</param>
public sealed record BackupEntry(string Path, bool IsEnvironment, long TransactionId, long Pages, long Bytes);
