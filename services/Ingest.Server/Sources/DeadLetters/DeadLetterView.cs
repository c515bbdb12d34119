using System.Text;
using System.Text.Unicode;
using Ingest.Contracts.DeadLetters;
using Ingest.Contracts.Http;
using Ingest.Documents;

namespace Ingest.Server.Sources.DeadLetters;

/// <summary>Turns a stored dead letter into its API form, decoding the message envelope in its raw bytes.</summary>
internal static class DeadLetterView
{
    public const string Utf8Encoding = "utf8";
    public const string Base64Encoding = "base64";

    public static DeadLetterEntry From(DeadLetter deadLetter)
    {
        var raw = deadLetter.Raw.Span;
        var stored = DateTime.SpecifyKind(deadLetter.Stored, DateTimeKind.Utc);
        var position = deadLetter.Position;
        if (!DeadLetterEnvelope.TryDecode(raw, out var envelope, out var error))
        {
            // Not an envelope (written by something else, or cut short when stored): show every byte.
            return new DeadLetterEntry(
                deadLetter.Id, position.Source, position.Partition, position.NextOffset, deadLetter.Reason, stored,
                Envelope: false, EnvelopeError: error, Destination: null, Key: null, KeyEncoding: null, MessageId: null, Tombstone: false,
                Headers: new Dictionary<string, string>(), Base64Headers: [], Body: Convert.ToBase64String(raw), BodyEncoding: Base64Encoding, Size: raw.Length);
        }

        var headers = new Dictionary<string, string>(StringComparer.Ordinal);
        var base64Headers = new List<string>();
        foreach (var header in envelope.Headers)
        {
            // The last value of a repeated name wins, as it does for the mapper.
            var text = Text(header.Value, out var encoding);
            headers[header.Key] = text;
            base64Headers.Remove(header.Key);
            if (encoding == Base64Encoding)
            {
                base64Headers.Add(header.Key);
            }
        }

        string? key = null;
        string? keyEncoding = null;
        if (envelope.Key is not null)
        {
            key = Text(envelope.Key, out var encoding);
            keyEncoding = encoding;
        }

        var body = Text(envelope.Body, out var bodyEncoding);
        return new DeadLetterEntry(
            deadLetter.Id, position.Source, position.Partition, position.NextOffset, deadLetter.Reason, stored,
            Envelope: true, EnvelopeError: null, envelope.Destination, key, keyEncoding, envelope.MessageId, envelope.IsTombstone,
            headers, base64Headers, body, bodyEncoding, raw.Length);
    }

    private static string Text(ReadOnlySpan<byte> bytes, out string encoding)
    {
        if (Utf8.IsValid(bytes))
        {
            encoding = Utf8Encoding;
            return Encoding.UTF8.GetString(bytes);
        }

        encoding = Base64Encoding;
        return Convert.ToBase64String(bytes);
    }
}
