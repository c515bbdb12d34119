namespace Ingest.Indexing.Runtime;

public enum IndexState
{
    /// <summary>Caught up, or catching up with the changes feed.</summary>
    Indexing,

    /// <summary>A changed definition or a reset is being built side by side; queries use the previous build.</summary>
    Rebuilding,

    /// <summary>The index's storage is damaged; its loop stopped (see <see cref="IndexStatus.Error"/>).</summary>
    Errored,
}
