namespace Ingest.Storage.Trees;

internal readonly ref struct ArrayKeyList(ReadOnlySpan<byte[]> keys) : IKeyList
{
    private readonly ReadOnlySpan<byte[]> _keys = keys;

    public int Count => _keys.Length;

    public ReadOnlySpan<byte> this[int index] => _keys[index];
}
