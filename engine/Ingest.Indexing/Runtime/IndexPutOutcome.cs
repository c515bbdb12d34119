namespace Ingest.Indexing.Runtime;

public enum IndexPutOutcome
{
    /// <summary>A new index; stored durably, indexing in the background.</summary>
    Created,

    /// <summary>The same definition was already stored; nothing changed.</summary>
    Unchanged,

    /// <summary>A changed definition: building side by side, swapped in when caught up.</summary>
    Rebuilding,
}
