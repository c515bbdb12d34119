namespace Ingest.Indexing.Reduce;

/// <summary>
/// One document's value entering (<paramref name="Sign"/> +1) or leaving (-1) a group's values: the value key's bytes
/// are <c>[Start, Start + Length)</c> of the batch's value arena; <paramref name="Slot"/> is the group's slot in the batch.
/// </summary>
internal readonly record struct ValueOp(int Start, int Length, int Sign, int Slot, int ValueField);
