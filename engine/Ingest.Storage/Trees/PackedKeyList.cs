namespace Ingest.Storage.Trees;

/// <summary>Keys of one size laid end to end in one buffer: no per-key object, no indirection.</summary>
internal readonly ref struct PackedKeyList : IKeyList
{
    private readonly ReadOnlySpan<byte> _keys;
    private readonly int _keySize;

    public PackedKeyList(ReadOnlySpan<byte> keys, int keySize)
    {
        ArgumentOutOfRangeException.ThrowIfNegativeOrZero(keySize);
        if (keys.Length % keySize != 0)
        {
            throw new ArgumentException($"The buffer holds {keys.Length} bytes, not a whole number of {keySize}-byte keys.", nameof(keys));
        }

        _keys = keys;
        _keySize = keySize;
    }

    public int Count => _keys.Length / _keySize;

    public ReadOnlySpan<byte> this[int index] => _keys.Slice(index * _keySize, _keySize);
}
