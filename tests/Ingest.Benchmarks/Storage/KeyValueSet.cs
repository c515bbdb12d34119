namespace Ingest.Benchmarks.Storage;

/// <summary>Keys and their values, pairwise by index.</summary>
internal sealed record KeyValueSet(FixedSizeRecords Keys, FixedSizeRecords Values)
{
    public int Count => Keys.Count;

    public static KeyValueSet Random(Random random, int count, int keySize, int valueSize) =>
        new(FixedSizeRecords.Random(random, count, keySize), FixedSizeRecords.Random(random, count, valueSize));
}
