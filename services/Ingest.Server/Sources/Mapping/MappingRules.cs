using Ingest.Contracts.DeadLetters;

namespace Ingest.Server.Sources.Mapping;

/// <summary>
/// How one source turns messages into documents. The id comes from, in this order: the
/// <c>ingest-id</c> header; the Kafka key (when the record has one) or the AMQP message-id; the
/// top-level JSON property <see cref="IdProperty"/> (puts only). The collection comes from the
/// <c>ingest-collection</c> header, else <see cref="Collection"/>, else the topic or queue name.
/// </summary>
public sealed record MappingRules
{
    public const int DefaultMaxBodyBytes = 16 * 1024 * 1024;

    private readonly string? _idProperty;
    private readonly string? _collection;
    private readonly int _maxBodyBytes = DefaultMaxBodyBytes;

    /// <summary>A top-level JSON property of the body that holds the id; null to not look in the body.</summary>
    public string? IdProperty
    {
        get => _idProperty;
        init => _idProperty = value is { Length: 0 }
            ? throw new ArgumentException("IdProperty must be null or a non-empty property name.", nameof(IdProperty))
            : value;
    }

    /// <summary>The collection for messages without an <c>ingest-collection</c> header; null to use the topic or queue name.</summary>
    public string? Collection
    {
        get => _collection;
        init => _collection = value is { Length: 0 }
            ? throw new ArgumentException("Collection must be null or a non-empty name.", nameof(Collection))
            : value;
    }

    /// <summary>The largest body a put may carry; larger messages become <see cref="DeadLetterReason.TooLarge"/> dead letters.</summary>
    public int MaxBodyBytes
    {
        get => _maxBodyBytes;
        init => _maxBodyBytes = value > 0
            ? value
            : throw new ArgumentOutOfRangeException(nameof(MaxBodyBytes), value, "MaxBodyBytes must be positive.");
    }
}
