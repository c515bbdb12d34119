namespace Ingest.Cli.Store;

/// <summary>The names in a server's data directory the CLI relies on (the server's DataDirectory and StoreRegistration).</summary>
internal static class DataDirectoryLayout
{
    /// <summary>Held exclusively by a running server.</summary>
    public const string LockFileName = "ingest.lock";

    /// <summary>The document store's environment.</summary>
    public const string StoreFolder = "store";
}
