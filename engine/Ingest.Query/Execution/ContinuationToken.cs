using System.Buffers.Text;
using System.Text;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// Where the next page starts, handed to the client as an opaque base64url string. Keyset, not offset, so pages
/// across concurrent writes neither repeat nor skip:
/// <code>
/// | version u8 = 1 | kind u8 | source: length-prefixed UTF-8 (index name or collection/Name) |
/// | definition fingerprint u64 | bound etag i64 | last i64 (entry or etag) | anchor u64 (hash of the last entry's folded id) |
/// | key count u8 | per key: kind u8 | field i32 | descending u8 | missing u8 | value u64 | bytes: length-prefixed |
/// </code>
/// The bound is the index's (or store's) last etag when the first page ran: later pages leave out documents written
/// after it, so a document updated while paging (its order key may have moved) is never returned twice.
/// </summary>
internal sealed record ContinuationToken(
    ContinuationKind Kind,
    string Source,
    ulong DefinitionFingerprint,
    long BoundEtag,
    long Last,
    ulong Anchor,
    IReadOnlyList<SortKeySpec> Order,
    IReadOnlyList<ContinuationKey> Keys)
{
    private const byte Version = 1;

    public string Encode()
    {
        using var stream = new MemoryStream();
        using (var writer = new BinaryWriter(stream, Encoding.UTF8, leaveOpen: true))
        {
            writer.Write(Version);
            writer.Write((byte)Kind);
            writer.Write(Source);
            writer.Write(DefinitionFingerprint);
            writer.Write(BoundEtag);
            writer.Write(Last);
            writer.Write(Anchor);
            writer.Write((byte)Keys.Count);
            for (var i = 0; i < Keys.Count; i++)
            {
                writer.Write((byte)Order[i].Kind);
                writer.Write(Order[i].Field);
                writer.Write(Order[i].Descending);
                writer.Write(Keys[i].Missing);
                writer.Write(Keys[i].Value);
                writer.Write7BitEncodedInt(Keys[i].Bytes.Length);
                writer.Write(Keys[i].Bytes);
            }
        }

        return Base64Url.EncodeToString(stream.ToArray());
    }

    /// <exception cref="QueryException">The text is not a token this server made.</exception>
    public static ContinuationToken Decode(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        try
        {
            using var reader = new BinaryReader(new MemoryStream(Base64Url.DecodeFromChars(text)), Encoding.UTF8);
            if (reader.ReadByte() != Version)
            {
                throw Invalid("unknown version");
            }

            var kind = (ContinuationKind)reader.ReadByte();
            var source = reader.ReadString();
            var fingerprint = reader.ReadUInt64();
            var bound = reader.ReadInt64();
            var last = reader.ReadInt64();
            var anchor = reader.ReadUInt64();
            var count = reader.ReadByte();
            var order = new SortKeySpec[count];
            var keys = new ContinuationKey[count];
            for (var i = 0; i < count; i++)
            {
                var keyKind = (SortKeyKind)reader.ReadByte();
                var field = reader.ReadInt32();
                var descending = reader.ReadBoolean();
                var missing = reader.ReadBoolean();
                var value = reader.ReadUInt64();
                var length = reader.Read7BitEncodedInt();
                if (length is < 0 or > 4096)
                {
                    throw Invalid("bad key length");
                }

                order[i] = new SortKeySpec(keyKind, field, descending, "");
                keys[i] = new ContinuationKey(missing, value, reader.ReadBytes(length));
            }

            return kind > ContinuationKind.Collection ? throw Invalid("unknown kind") : new ContinuationToken(kind, source, fingerprint, bound, last, anchor, order, keys);
        }
        catch (Exception ex) when (ex is FormatException or EndOfStreamException or IOException or ArgumentException)
        {
            throw Invalid(ex.Message);
        }
    }

    private static QueryException Invalid(string why) =>
        new($"the continuation token is not valid ({why}); pass the token a previous page returned, unchanged");
}
