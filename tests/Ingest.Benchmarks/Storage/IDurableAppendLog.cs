namespace Ingest.Benchmarks.Storage;

/// <summary>The floor under every durable commit: append a block to a file and fdatasync it.</summary>
internal interface IDurableAppendLog : IStorageSystem
{
    void AppendDurably(ReadOnlySpan<byte> block);
}
