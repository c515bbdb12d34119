namespace Ingest.Storage;

/// <summary>
/// What an environment opened with <see cref="StorageOptions.AcceptJournalLoss"/> gave up: the
/// journal was damaged (a file missing or truncated) and replay stopped at the damage.
/// </summary>
/// <param name="FilePath">The damaged or missing journal file.</param>
/// <param name="Offset">Where in it the intact records end.</param>
/// <param name="LastRecoveredTransaction">The last transaction the store holds.</param>
/// <param name="LastKnownTransaction">The highest transaction id later journal files named, when any did: everything after <paramref name="LastRecoveredTransaction"/> up to it is lost; null when nothing says how many were lost.</param>
/// <param name="Description">The same text the refusal to open gave.</param>
public sealed record JournalLoss(string FilePath, long Offset, long LastRecoveredTransaction, long? LastKnownTransaction, string Description);
