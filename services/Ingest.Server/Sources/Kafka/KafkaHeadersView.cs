using Confluent.Kafka;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// The mapper's view of a Kafka record's headers, over Confluent's <see cref="Headers"/> without
/// copying them. One instance is reused for every record on the consume thread.
/// </summary>
/// <remarks>
/// A repeated header: the last value wins. A header with a null value counts as present and
/// empty (an empty <c>ingest-op</c> means put, an empty <c>ingest-id</c> is an invalid id), and a
/// dead letter's envelope stores it as empty, so replaying a dead letter maps it the same way.
/// </remarks>
internal sealed class KafkaHeadersView : IMessageHeaders, IEnvelopeHeaders
{
    private Headers? _headers;

    /// <summary>The headers of the record being mapped; null or empty when it has none.</summary>
    public Headers? Headers
    {
        get => _headers;
        set => _headers = value;
    }

    public bool TryGetValue(string name, out ReadOnlySpan<byte> utf8Value)
    {
        var headers = _headers;
        if (headers is not null)
        {
            for (var i = headers.Count - 1; i >= 0; i--)
            {
                var header = headers[i];
                if (string.Equals(header.Key, name, StringComparison.Ordinal))
                {
                    // Confluent hands out its own array, not a copy.
                    utf8Value = header.GetValueBytes();
                    return true;
                }
            }
        }

        utf8Value = default;
        return false;
    }

    /// <inheritdoc/>
    public IReadOnlyList<KeyValuePair<string, byte[]>>? ToEnvelopeHeaders() => ToList(_headers);

    /// <summary>The headers in order, as a dead letter's envelope stores them; null values become empty.</summary>
    public static IReadOnlyList<KeyValuePair<string, byte[]>>? ToList(Headers? headers)
    {
        if (headers is null || headers.Count == 0)
        {
            return null;
        }

        var list = new List<KeyValuePair<string, byte[]>>(headers.Count);
        for (var i = 0; i < headers.Count; i++)
        {
            var header = headers[i];
            list.Add(new(header.Key, header.GetValueBytes() ?? []));
        }

        return list;
    }
}
