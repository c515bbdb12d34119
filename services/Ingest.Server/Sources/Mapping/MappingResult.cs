using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources.Mapping;

/// <summary>
/// What <see cref="MessageMapper.Map"/> made of a message: either a document operation or a dead
/// letter with its reason. <see cref="Body"/> points into the message's body.
/// </summary>
public readonly ref struct MappingResult
{
    private MappingResult(
        IngestOperation operation, string? id, string? collection, ReadOnlySpan<byte> body,
        DeadLetterReason? deadLetterReason, string? deadLetterMessage)
    {
        Operation = operation;
        Id = id;
        Collection = collection;
        Body = body;
        DeadLetterReason = deadLetterReason;
        DeadLetterMessage = deadLetterMessage;
    }

    internal static MappingResult Put(string id, string collection, ReadOnlySpan<byte> body) =>
        new(IngestOperation.Put, id, collection, body, null, null);

    internal static MappingResult Delete(string id, string collection) =>
        new(IngestOperation.Delete, id, collection, default, null, null);

    internal static MappingResult DeadLetter(DeadLetterReason reason, string message) =>
        new(default, null, null, default, reason, message);

    /// <summary>True when the message is a dead letter; then only <see cref="DeadLetterReason"/> and <see cref="DeadLetterMessage"/> are set.</summary>
    [System.Diagnostics.CodeAnalysis.MemberNotNullWhen(true, nameof(DeadLetterMessage))]
    [System.Diagnostics.CodeAnalysis.MemberNotNullWhen(false, nameof(Id), nameof(Collection))]
    public bool IsDeadLetter => DeadLetterReason.HasValue;

    public IngestOperation Operation { get; }

    public string? Id { get; }

    public string? Collection { get; }

    /// <summary>The document for a put (a single JSON object); empty for a delete or a dead letter.</summary>
    public ReadOnlySpan<byte> Body { get; }

    public DeadLetterReason? DeadLetterReason { get; }

    /// <summary>A sentence for operators that names what is wrong with the message.</summary>
    public string? DeadLetterMessage { get; }
}
