namespace Ingest.Storage.Trees;

/// <summary>Keys handed to a batch operation, in ascending order.</summary>
internal interface IKeyList
{
    int Count { get; }

    ReadOnlySpan<byte> this[int index] { get; }
}
