namespace Ingest.Benchmarks.Storage;

/// <summary>What a full enumeration saw: how many ids and their sum, so the runner can check it and the JIT cannot skip it.</summary>
internal readonly record struct PostingListScan(long Count, long Sum);
