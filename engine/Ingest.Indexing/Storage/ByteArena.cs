namespace Ingest.Indexing.Storage;

/// <summary>A growable byte buffer that batch work appends term bytes to; <see cref="Clear"/> keeps the array.</summary>
internal sealed class ByteArena
{
    public byte[] Bytes { get; private set; } = new byte[4096];

    public int Length { get; private set; }

    public void Clear() => Length = 0;

    /// <summary>Room for <paramref name="length"/> more bytes at <see cref="Length"/> (may replace <see cref="Bytes"/>).</summary>
    public Span<byte> Reserve(int length)
    {
        if (Bytes.Length - Length < length)
        {
            var grown = new byte[Math.Max(Bytes.Length * 2, Length + length)];
            Bytes.AsSpan(0, Length).CopyTo(grown);
            Bytes = grown;
        }

        return Bytes.AsSpan(Length, length);
    }

    public void Advance(int length) => Length += length;

    /// <summary>Copies <paramref name="bytes"/> in and returns where they start.</summary>
    public int Append(ReadOnlySpan<byte> bytes)
    {
        bytes.CopyTo(Reserve(bytes.Length));
        var start = Length;
        Length += bytes.Length;
        return start;
    }
}
