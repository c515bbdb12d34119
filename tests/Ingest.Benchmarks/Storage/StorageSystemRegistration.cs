namespace Ingest.Benchmarks.Storage;

/// <summary>A system's name (its column) and how to open it on an empty directory; null while it cannot be built yet.</summary>
internal sealed record StorageSystemRegistration(string Name, Func<string, IStorageSystem>? Open);
