namespace Ingest.Documents.Writing;

/// <summary>
/// One operation of a <see cref="WriteBatch"/>. Payloads (bodies, raw dead letters) and, once the
/// batch is validated, folded id keys live in the batch's byte buffer at the given offsets.
/// </summary>
internal struct BatchOperation
{
    public OperationKind Kind;

    /// <summary>Document id (put, delete) or source name (source position, dead letter).</summary>
    public string Name;

    /// <summary>Collection (put) or reason (dead letter).</summary>
    public string? Text;

    public int PayloadOffset;
    public int PayloadLength;
    public int KeyOffset;
    public int KeyLength;

    /// <summary>The source partition (source position, dead letter) or the log position's partition (put, delete).</summary>
    public int Partition;

    /// <summary>The source offset (source position, dead letter), the dead letter id (dead letter delete) or the log position's offset (put, delete).</summary>
    public long Offset;

    /// <summary>The log position's topic (put, delete); null: the operation has no log position.</summary>
    public string? Topic;

    /// <summary>A put whose caller already validated the JSON (<see cref="WriteBatch.PutValidated"/>): only its size is checked.</summary>
    public bool BodyValidated;

    /// <summary>A put whose body the caller's thread compressed: its stored body (header and frame) lies in the batch's buffer here (0: not compressed).</summary>
    public int StoredOffset;
    public int StoredLength;

    /// <summary>The dictionary the caller's thread compressed with (or would have: a body that did not pay is stored raw).</summary>
    public uint StoredDictionary;

    /// <summary>The caller's thread tried to compress this put: an empty stored body then means "store it raw".</summary>
    public bool CompressionTried;
    /// <summary>The document's own <c>@metadata.@expires</c> in UTC ticks, 0 if none (puts only, set by validation).</summary>
    public long ExplicitExpiresTicks;

    /// <summary>When the document expires, its own expiry and its collection's retention together, 0 if never (puts only, set by validation).</summary>
    public long ExpiresTicks;

    /// <summary>The collection, resolved by validation (puts only).</summary>
    public CollectionName? CollectionName;
}
