using System.Buffers.Text;
using System.Text;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>
/// Where the next page of a map-reduce index's rows starts: keyset, after the last row's order values and group key,
/// so that pages over groups that change meanwhile neither repeat nor skip a group that stays in place. Opaque
/// base64url:
/// <code>
/// | tag u8 = 'R' | source: length-prefixed UTF-8 | definition fingerprint u64 |
/// | value count u8 | per order value: kind u8 (0 null, 1 double, 2 long, 3 string, 4 datetime ticks, 5 bool) | value |
/// | group key: 7-bit length | bytes |
/// </code>
/// </summary>
internal sealed record GroupContinuation(string Source, ulong Fingerprint, IReadOnlyList<object?> OrderValues, byte[] GroupKey)
{
    private const byte Tag = (byte)'R';

    public string Encode()
    {
        using var stream = new MemoryStream();
        using (var writer = new BinaryWriter(stream, Encoding.UTF8, leaveOpen: true))
        {
            writer.Write(Tag);
            writer.Write(Source);
            writer.Write(Fingerprint);
            writer.Write((byte)OrderValues.Count);
            foreach (var value in OrderValues)
            {
                switch (value)
                {
                    case null: writer.Write((byte)0); break;
                    case double d: writer.Write((byte)1); writer.Write(d); break;
                    case long l: writer.Write((byte)2); writer.Write(l); break;
                    case string s: writer.Write((byte)3); writer.Write(s); break;
                    case DateTime t: writer.Write((byte)4); writer.Write(t.Ticks); break;
                    case bool b: writer.Write((byte)5); writer.Write(b); break;
                    default: throw new ArgumentException($"A group row holds a {value.GetType()}.", nameof(OrderValues));
                }
            }

            writer.Write7BitEncodedInt(GroupKey.Length);
            writer.Write(GroupKey);
        }

        return Base64Url.EncodeToString(stream.ToArray());
    }

    /// <summary>Null when <paramref name="text"/> is not a map-reduce token (then it is no token of ours at all).</summary>
    /// <exception cref="QueryException">A map-reduce token that is damaged.</exception>
    public static GroupContinuation Decode(string text)
    {
        try
        {
            using var reader = new BinaryReader(new MemoryStream(Base64Url.DecodeFromChars(text)), Encoding.UTF8);
            if (reader.ReadByte() != Tag)
            {
                throw Invalid("not a token of a map-reduce index's rows");
            }

            var source = reader.ReadString();
            var fingerprint = reader.ReadUInt64();
            var values = new object?[reader.ReadByte()];
            for (var i = 0; i < values.Length; i++)
            {
                values[i] = reader.ReadByte() switch
                {
                    0 => null,
                    1 => reader.ReadDouble(),
                    2 => reader.ReadInt64(),
                    3 => reader.ReadString(),
                    4 => new DateTime(reader.ReadInt64(), DateTimeKind.Utc),
                    5 => reader.ReadBoolean(),
                    _ => throw Invalid("unknown value kind"),
                };
            }

            var length = reader.Read7BitEncodedInt();
            if (length is < 0 or > 4096)
            {
                throw Invalid("bad group key length");
            }

            return new GroupContinuation(source, fingerprint, values, reader.ReadBytes(length));
        }
        catch (Exception ex) when (ex is FormatException or EndOfStreamException or IOException or ArgumentException)
        {
            throw Invalid(ex.Message);
        }
    }

    private static QueryException Invalid(string why) =>
        new($"the continuation token is not valid ({why}); pass the token a previous page returned, unchanged");
}
