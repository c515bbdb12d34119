using System.Text;
using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources;

/// <summary>
/// Encodes a message that cannot become a document as its dead letter's payload, keeping as much
/// of it as the envelope format can carry. It does not throw for anything a broker can deliver:
/// a message the source cannot handle must be stored, never skipped nor redelivered forever.
/// </summary>
internal static class DeadLetterPayload
{
    /// <summary>
    /// The envelope (key, headers, body); headers beyond the format's limits are cut and
    /// <paramref name="reason"/> says what was cut. If even that cannot be encoded, the payload is
    /// the raw body alone and the reason says so (such a dead letter can be inspected, not replayed).
    /// </summary>
    public static byte[] Encode<THeaders>(in IncomingMessage message, in THeaders headers, ref string reason)
        where THeaders : IEnvelopeHeaders
    {
        IReadOnlyList<KeyValuePair<string, byte[]>>? kept;
        try
        {
            kept = Fit(headers.ToEnvelopeHeaders(), ref reason);
        }
        catch (Exception ex) when (ex is not OutOfMemoryException)
        {
            kept = null;
            reason += $"; its headers could not be read and are not kept ({ex.GetType().Name}: {ex.Message})";
        }

        try
        {
            return DeadLetterEnvelope.Encode(
                message.Destination, message.Key, message.HasKey, message.MessageId, kept, message.Body, message.IsTombstone);
        }
        catch (Exception ex) when (ex is ArgumentException or OverflowException)
        {
            reason += $"; stored as the raw body only, the message does not fit a dead-letter envelope ({ex.Message})";
            return message.Body.ToArray();
        }
    }

    /// <summary>The headers cut to what an envelope holds: at most <see cref="DeadLetterEnvelope.MaxHeaders"/>, names of at most <see cref="DeadLetterEnvelope.MaxNameBytes"/> bytes.</summary>
    internal static IReadOnlyList<KeyValuePair<string, byte[]>>? Fit(IReadOnlyList<KeyValuePair<string, byte[]>>? headers, ref string reason)
    {
        if (headers is null || headers.Count == 0)
        {
            return headers;
        }

        List<KeyValuePair<string, byte[]>>? fitted = null;
        var count = Math.Min(headers.Count, DeadLetterEnvelope.MaxHeaders);
        if (count < headers.Count)
        {
            reason += $"; the envelope keeps the first {count} of its {headers.Count} headers";
            fitted = new List<KeyValuePair<string, byte[]>>(count);
        }

        var cutNames = 0;
        for (var i = 0; i < count; i++)
        {
            var header = headers[i];
            var name = header.Key ?? string.Empty;
            if (name.Length > DeadLetterEnvelope.MaxNameBytes / 3 && Encoding.UTF8.GetByteCount(name) > DeadLetterEnvelope.MaxNameBytes)
            {
                name = CutName(name);
                cutNames++;
            }

            if (fitted is null && (cutNames > 0 || header.Key is null || header.Value is null))
            {
                fitted = new List<KeyValuePair<string, byte[]>>(count);
                for (var j = 0; j < i; j++)
                {
                    fitted.Add(headers[j]);
                }
            }

            fitted?.Add(new(name, header.Value ?? []));
        }

        if (cutNames > 0)
        {
            reason += $"; {cutNames} header name(s) longer than {DeadLetterEnvelope.MaxNameBytes} bytes are cut to that length";
        }

        return fitted ?? headers;
    }

    // The longest prefix that fits, cut on a character boundary.
    private static string CutName(string name)
    {
        var bytes = Encoding.UTF8.GetBytes(name);
        var length = DeadLetterEnvelope.MaxNameBytes;
        while (length > 0 && (bytes[length] & 0xC0) == 0x80)
        {
            length--;
        }

        return Encoding.UTF8.GetString(bytes, 0, length);
    }
}
