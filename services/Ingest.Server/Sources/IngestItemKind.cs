namespace Ingest.Server.Sources;

/// <summary>What a consumed message does to the store.</summary>
public enum IngestItemKind : byte
{
    Put,
    Delete,
    DeadLetter,

    /// <summary>What a source's transform returned: zero or more puts and deletes, in <see cref="IngestItem.Operations"/>.</summary>
    Transformed,

    /// <summary>
    /// A message for the source's transform, held in <see cref="IngestItem.Message"/> (body in the
    /// payload): the batch writer runs the script before it writes the batch, off the consume thread,
    /// and the item becomes <see cref="Transformed"/> or a <see cref="DeadLetter"/>.
    /// </summary>
    AwaitingTransform,
}
