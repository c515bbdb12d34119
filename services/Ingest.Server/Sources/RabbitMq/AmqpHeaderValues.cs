using System.Collections;
using System.Globalization;
using System.Text;
using RabbitMQ.Client;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// AMQP header values as bytes, for dead-letter envelopes. Long strings arrive as byte[] and are
/// kept as they are; other field types become their text (invariant culture), so an operator can
/// read them and a replay through the mapper sees the same ingest-* values.
/// </summary>
internal static class AmqpHeaderValues
{
    /// <summary>The headers in the dictionary's order; null values are left out (the mapper treats them as absent too).</summary>
    public static List<KeyValuePair<string, byte[]>> ToEnvelopeHeaders(IDictionary<string, object?>? headers)
    {
        if (headers is null || headers.Count == 0)
        {
            return [];
        }

        var result = new List<KeyValuePair<string, byte[]>>(headers.Count);
        foreach (var (name, value) in headers)
        {
            if (value is not null)
            {
                result.Add(new(name, ToBytes(value)));
            }
        }

        return result;
    }

    public static byte[] ToBytes(object value) => value switch
    {
        byte[] bytes => bytes,
        ReadOnlyMemory<byte> memory => memory.ToArray(),
        string text => Encoding.UTF8.GetBytes(text),
        _ => Encoding.UTF8.GetBytes(ToText(value)),
    };

    private static string ToText(object? value) => value switch
    {
        null => "null",
        byte[] bytes => Encoding.UTF8.GetString(bytes),
        string text => text,
        bool flag => flag ? "true" : "false",
        AmqpTimestamp timestamp => timestamp.UnixTime.ToString(CultureInfo.InvariantCulture),
        BinaryTableValue binary => Convert.ToBase64String(binary.Bytes ?? []),
        IFormattable formattable => formattable.ToString(null, CultureInfo.InvariantCulture),
        IDictionary<string, object?> table => TableText(table),
        IEnumerable list => ListText(list),
        _ => value.ToString() ?? string.Empty,
    };

    private static string TableText(IDictionary<string, object?> table)
    {
        var text = new StringBuilder("{");
        foreach (var (name, value) in table)
        {
            if (text.Length > 1)
            {
                text.Append(',');
            }

            text.Append(name).Append('=').Append(ToText(value));
        }

        return text.Append('}').ToString();
    }

    private static string ListText(IEnumerable list)
    {
        var text = new StringBuilder("[");
        foreach (var value in list)
        {
            if (text.Length > 1)
            {
                text.Append(',');
            }

            text.Append(ToText(value));
        }

        return text.Append(']').ToString();
    }
}
