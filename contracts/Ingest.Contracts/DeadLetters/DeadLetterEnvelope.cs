using System.Buffers.Binary;
using System.Diagnostics.CodeAnalysis;
using System.Text;
using Ingest.Contracts.Messages;

namespace Ingest.Contracts.DeadLetters;

/// <summary>
/// A rejected message as it arrived: where from, key or message-id, headers and body, so it can
/// be inspected and replayed through the same mapping later. Stored as a dead letter's raw bytes.
/// </summary>
/// <remarks>
/// Layout (integers little-endian):
/// <code>
/// "IDL" 0x01                      magic and version
/// u8  flags                       1 = has key, 2 = tombstone, 4 = has message-id
/// u16 length, bytes               destination (topic or queue), UTF-8
/// i32 length, bytes               key                    (only with flag 1)
/// u16 length, bytes               message-id, UTF-8       (only with flag 4)
/// u16 header count
///   u16 length, bytes             header name, UTF-8
///   i32 length, bytes             header value
/// i32 length, bytes               body (length 0 for a tombstone)
/// </code>
/// </remarks>
public sealed class DeadLetterEnvelope : IMessageHeaders
{
    /// <summary>The most headers an envelope holds (a u16 count).</summary>
    public const int MaxHeaders = ushort.MaxValue;

    /// <summary>The longest header name, destination or message-id an envelope holds, in UTF-8 bytes (a u16 length).</summary>
    public const int MaxNameBytes = ushort.MaxValue;

    private static ReadOnlySpan<byte> Magic => "IDL\x01"u8;

    private const byte HasKeyFlag = 1;
    private const byte TombstoneFlag = 2;
    private const byte HasMessageIdFlag = 4;

    private readonly List<KeyValuePair<string, byte[]>> _headers;

    public DeadLetterEnvelope(
        string destination, byte[]? key, string? messageId, IReadOnlyList<KeyValuePair<string, byte[]>> headers, byte[] body, bool isTombstone)
    {
        ArgumentNullException.ThrowIfNull(destination);
        ArgumentNullException.ThrowIfNull(headers);
        ArgumentNullException.ThrowIfNull(body);
        Destination = destination;
        Key = key;
        MessageId = messageId;
        _headers = [.. headers];
        Body = isTombstone ? [] : body;
        IsTombstone = isTombstone;
    }

    /// <summary>The Kafka topic or AMQP queue.</summary>
    public string Destination { get; }

    /// <summary>The Kafka key; null when the record had none.</summary>
    public byte[]? Key { get; }

    /// <summary>The AMQP message-id; null when unset.</summary>
    public string? MessageId { get; }

    public IReadOnlyList<KeyValuePair<string, byte[]>> Headers => _headers;

    public byte[] Body { get; }

    public bool IsTombstone { get; }

    /// <summary>This message as the mapper sees it; <paramref name="body"/> replaces the stored body when given (a fixed message).</summary>
    public IncomingMessage ToIncomingMessage(ReadOnlySpan<byte> body, bool replaceBody) =>
        new(Destination, Key, Key is not null, MessageId, replaceBody ? body : Body, IsTombstone && !replaceBody, this);

    /// <inheritdoc/>
    public bool TryGetValue(string name, out ReadOnlySpan<byte> utf8Value)
    {
        // The last value wins, as it does for the brokers' own header lookups.
        for (var i = _headers.Count - 1; i >= 0; i--)
        {
            if (string.Equals(_headers[i].Key, name, StringComparison.Ordinal))
            {
                utf8Value = _headers[i].Value;
                return true;
            }
        }

        utf8Value = default;
        return false;
    }

    /// <summary>Encodes a message without first copying it into an envelope object.</summary>
    public static byte[] Encode(
        string destination, ReadOnlySpan<byte> key, bool hasKey, string? messageId,
        IReadOnlyList<KeyValuePair<string, byte[]>>? headers, ReadOnlySpan<byte> body, bool isTombstone)
    {
        ArgumentNullException.ThrowIfNull(destination);
        var size = Magic.Length + 1 + 2 + Encoding.UTF8.GetByteCount(destination) + 2 + 4 + (isTombstone ? 0 : body.Length);
        if (hasKey)
        {
            size += 4 + key.Length;
        }

        if (messageId is not null)
        {
            size += 2 + Encoding.UTF8.GetByteCount(messageId);
        }

        var headerCount = headers?.Count ?? 0;
        if (headerCount > MaxHeaders)
        {
            throw new ArgumentException($"A message can carry at most {MaxHeaders} headers.", nameof(headers));
        }

        for (var i = 0; i < headerCount; i++)
        {
            size += 2 + Encoding.UTF8.GetByteCount(headers![i].Key) + 4 + headers[i].Value.Length;
        }

        var buffer = new byte[size];
        var span = buffer.AsSpan();
        Magic.CopyTo(span);
        span[4] = (byte)((hasKey ? HasKeyFlag : 0) | (isTombstone ? TombstoneFlag : 0) | (messageId is not null ? HasMessageIdFlag : 0));
        var position = 5;
        WriteShortString(span, ref position, destination);
        if (hasKey)
        {
            WriteBytes(span, ref position, key);
        }

        if (messageId is not null)
        {
            WriteShortString(span, ref position, messageId);
        }

        BinaryPrimitives.WriteUInt16LittleEndian(span[position..], (ushort)headerCount);
        position += 2;
        for (var i = 0; i < headerCount; i++)
        {
            WriteShortString(span, ref position, headers![i].Key);
            WriteBytes(span, ref position, headers[i].Value);
        }

        WriteBytes(span, ref position, isTombstone ? default : body);
        return buffer;
    }

    /// <summary>Encodes this envelope.</summary>
    public byte[] Encode() => Encode(Destination, Key, Key is not null, MessageId, _headers, Body, IsTombstone);

    /// <summary>Decodes an envelope; false (with a reason) when <paramref name="raw"/> is not one.</summary>
    public static bool TryDecode(ReadOnlySpan<byte> raw, [NotNullWhen(true)] out DeadLetterEnvelope? envelope, [NotNullWhen(false)] out string? error)
    {
        envelope = null;
        if (raw.Length < 5 || !raw[..4].SequenceEqual(Magic))
        {
            error = "not a dead-letter envelope (bad magic or version)";
            return false;
        }

        var flags = raw[4];
        var position = 5;
        try
        {
            var destination = ReadShortString(raw, ref position);
            var key = (flags & HasKeyFlag) != 0 ? ReadBytes(raw, ref position).ToArray() : null;
            var messageId = (flags & HasMessageIdFlag) != 0 ? ReadShortString(raw, ref position) : null;
            var count = BinaryPrimitives.ReadUInt16LittleEndian(raw[position..]);
            position += 2;
            var headers = new List<KeyValuePair<string, byte[]>>(count);
            for (var i = 0; i < count; i++)
            {
                var name = ReadShortString(raw, ref position);
                headers.Add(new(name, ReadBytes(raw, ref position).ToArray()));
            }

            var body = ReadBytes(raw, ref position).ToArray();
            if (position != raw.Length)
            {
                error = $"{raw.Length - position} unexpected bytes after the body";
                return false;
            }

            envelope = new DeadLetterEnvelope(destination, key, messageId, headers, body, (flags & TombstoneFlag) != 0);
            error = null;
            return true;
        }
        catch (ArgumentOutOfRangeException)
        {
            error = $"truncated at byte {position}";
            return false;
        }
    }

    private static void WriteShortString(Span<byte> span, ref int position, string value)
    {
        var length = Encoding.UTF8.GetBytes(value, span[(position + 2)..]);
        if (length > MaxNameBytes)
        {
            throw new ArgumentException($"'{value[..32]}...' is longer than {MaxNameBytes} bytes.", nameof(value));
        }

        BinaryPrimitives.WriteUInt16LittleEndian(span[position..], (ushort)length);
        position += 2 + length;
    }

    private static void WriteBytes(Span<byte> span, ref int position, ReadOnlySpan<byte> value)
    {
        BinaryPrimitives.WriteInt32LittleEndian(span[position..], value.Length);
        value.CopyTo(span[(position + 4)..]);
        position += 4 + value.Length;
    }

    private static string ReadShortString(ReadOnlySpan<byte> raw, ref int position)
    {
        var length = BinaryPrimitives.ReadUInt16LittleEndian(raw[position..]);
        var value = Encoding.UTF8.GetString(raw.Slice(position + 2, length));
        position += 2 + length;
        return value;
    }

    private static ReadOnlySpan<byte> ReadBytes(ReadOnlySpan<byte> raw, ref int position)
    {
        var length = BinaryPrimitives.ReadInt32LittleEndian(raw[position..]);
        if (length < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(raw));
        }

        var value = raw.Slice(position + 4, length);
        position += 4 + length;
        return value;
    }
}
