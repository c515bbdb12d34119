namespace Ingest.Storage.Trees;

internal readonly ref struct MemoryKeyList(ReadOnlySpan<ReadOnlyMemory<byte>> keys) : IKeyList
{
    private readonly ReadOnlySpan<ReadOnlyMemory<byte>> _keys = keys;

    public int Count => _keys.Length;

    public ReadOnlySpan<byte> this[int index] => _keys[index].Span;
}
