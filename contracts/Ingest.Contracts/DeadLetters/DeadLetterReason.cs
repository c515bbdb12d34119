namespace Ingest.Contracts.DeadLetters;

/// <summary>Why a message could not be mapped to a document operation and became a dead letter.</summary>
public enum DeadLetterReason
{
    /// <summary>A put whose body is not a single valid JSON object (or has no body at all).</summary>
    NotJson,

    /// <summary>None of the configured id sources yielded an id.</summary>
    NoId,

    /// <summary>The body is larger than the source allows (its mapping rules' MaxBodyBytes).</summary>
    TooLarge,

    /// <summary>The <c>ingest-op</c> header names neither put nor delete.</summary>
    UnknownOperation,

    /// <summary>The id found is empty, not valid UTF-8, longer than 512 UTF-8 bytes, or not a JSON string or number.</summary>
    InvalidId,

    /// <summary>The <c>ingest-collection</c> header is not valid UTF-8 or longer than 512 UTF-8 bytes.</summary>
    InvalidCollection,
}
