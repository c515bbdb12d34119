namespace Ingest.Benchmarks.Storage;

/// <summary>A tree opened by <see cref="IKeyValueStore.OpenTree"/>; the value means something to that system only.</summary>
internal readonly record struct TreeId(int Value);
