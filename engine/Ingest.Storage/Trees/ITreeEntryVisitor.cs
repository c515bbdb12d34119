namespace Ingest.Storage.Trees;

/// <summary>
/// Receives a <see cref="Tree"/>'s entries from <see cref="TreeCursor.VisitForward"/> and
/// <see cref="TreeCursor.VisitBackward"/>; both spans point into the snapshot's pages and are valid only during the call.
/// Implement it on a struct (or ref struct): the walk is compiled for it, so a visit makes no interface call.
/// </summary>
public interface ITreeEntryVisitor
{
    /// <summary>Takes one entry; false stops the walk after it.</summary>
    bool Visit(ReadOnlySpan<byte> key, ReadOnlySpan<byte> value);
}
