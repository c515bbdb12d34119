using System.Buffers.Binary;
using System.Globalization;

namespace Ingest.Indexing.Storage;

/// <summary>
/// What one index stores in its own <see cref="Ingest.Storage.StorageEnvironment"/> (its own directory), by tree name.
/// Field numbers are the ordinals of the definition's fields. Integers are little-endian unless said otherwise.
/// <code>
/// "terms"  Tree: the term dictionary, in (field, term) order, so a field's terms are one key range
///   key:   | field u16 big-endian | encoded term (0..1024 bytes, see Terms/) |
///   value: | 0x00 | varint first id | varint delta | varint delta | ...        inline: up to the inline limit of ids
///          | 0x01 | list number u64 |                                          spilled: PostingList "postings/{n}"
///   A term with no entries left is deleted when inline; a spilled list that empties stays (the storage engine cannot
///   drop a posting list) and reads as no entries.
///
/// "nulls/{field}"    PostingList: the entries where the field is null (missing, or null on the way or at the end).
///
/// "column/{field}"   FixedSizeTree, number and datetime fields only: entry id -> the field's first value in document
///                    order, as its 8-byte encoded term (big-endian, order-preserving; NumberTerm / DateTimeTerm).
///
/// Keyword fields' ordinal columns (format 2; the per-entry term numbers Lucene keeps as sorted doc values):
/// "ordinal-ids"        Tree: | field u16 big-endian | encoded term | -> | term number u32 |
///                      a keyword term's number, given when the field first meets the term (1, 2, ... per field) and
///                      kept for ever (a term that empties and comes back has its old number), never reused
/// "ordinal-terms"      Tree: | field u16 big-endian | term number u32 big-endian | -> encoded term
/// "ordinals/{field}"   FixedSizeTree: entry id -> | first term number u32 | term count u32 | (no key: no value)
/// "ordinal-sets/{field}" Tree, multi-valued entries only (term count > 1): | entry id u64 big-endian | ->
///                      term count × | term number u32 | (ascending numbers; the first is the column's)
///   Numbers are in first-seen order, not term order: a new term never renumbers the entries holding later terms, so
///   a batch writes only the entries it changes. A query maps the numbers its matches hold to term order once per
///   query (sorting the distinct numbers by their terms, one "ordinal-terms" read each): the remap costs per group,
///   reading the column costs per match. Format 1 indexes (no "format" key) have no ordinal trees and rebuild.
///
/// "entries" Tree: entry -> what it indexed, so an update or delete knows which terms to take away
///   key:   | entry id u64 big-endian |
///   value: | varint id length | document id UTF-8 |
///          then, for each field with terms or null, ascending:
///          | varint field | varint (term count &lt;&lt; 1 | is null) |
///          term count × | varint bytes shared with the previous term | varint suffix length | suffix |
///          terms sorted and distinct within the field (so the shared prefix compresses neighbours)
///
/// "docs"   Tree: document id folded as the document store folds ids (case-insensitive), UTF-8 -> | entry id u64 |
///          (a document put again with its id in other casing stays one entry; "entries" keeps the id as last written)
///
/// "meta"   Tree: "last-etag" -> u64, the etag of the last change committed
///                "next-entry" -> u64, the next entry id to assign (dense, from 1, never reused)
///                "next-list"  -> u64, the next spilled posting list number
///                "definition" -> the definition's JSON (IndexDefinitionJson)
///                "entry-count" -> u64, documents in the index
///                "format"     -> u32, the storage format (2; missing: 1, before ordinal columns)
///                "ordinal-next" -> per field, in field order, | next term number u32 | (keyword fields; others 1)
///                "field-counts" -> | wrong types u64 | nulls u64 | per field, in field order: values skipped for
///                                  their JSON type (every indexed version counts), entries null for the field now
/// </code>
/// A batch changes all of these and the last etag in one write transaction.
/// </summary>
internal static class IndexLayout
{
    public const string Terms = "terms";
    public const string Entries = "entries";
    public const string Docs = "docs";
    public const string Meta = "meta";
    public const string OrdinalIds = "ordinal-ids";
    public const string OrdinalTerms = "ordinal-terms";

    /// <summary>The storage format this code writes; an index of an older one rebuilds itself side by side on open.</summary>
    public const int CurrentFormat = 2;

    public const byte InlineTag = 0;
    public const byte SpilledTag = 1;

    /// <summary>The field number prefix of every term key.</summary>
    public const int FieldPrefixSize = 2;

    public static ReadOnlySpan<byte> LastEtagKey => "last-etag"u8;

    public static ReadOnlySpan<byte> NextEntryKey => "next-entry"u8;

    public static ReadOnlySpan<byte> NextListKey => "next-list"u8;

    public static ReadOnlySpan<byte> DefinitionKey => "definition"u8;

    public static ReadOnlySpan<byte> EntryCountKey => "entry-count"u8;

    public static ReadOnlySpan<byte> FieldCountsKey => "field-counts"u8;

    public static ReadOnlySpan<byte> FormatKey => "format"u8;

    public static ReadOnlySpan<byte> OrdinalNextKey => "ordinal-next"u8;

    public static string OrdinalsName(int field) => "ordinals/" + field.ToString(CultureInfo.InvariantCulture);

    public static string OrdinalSetsName(int field) => "ordinal-sets/" + field.ToString(CultureInfo.InvariantCulture);

    /// <summary>Writes the "ordinal-terms" key of a term number (6 bytes).</summary>
    public static void OrdinalTermKey(int field, uint number, Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt16BigEndian(destination, checked((ushort)field));
        BinaryPrimitives.WriteUInt32BigEndian(destination[FieldPrefixSize..], number);
    }

    public static string NullsName(int field) => "nulls/" + field.ToString(CultureInfo.InvariantCulture);

    public static string ColumnName(int field) => "column/" + field.ToString(CultureInfo.InvariantCulture);

    public static string PostingsName(long list) => "postings/" + list.ToString(CultureInfo.InvariantCulture);

    /// <summary>Writes the term key into <paramref name="destination"/> and returns its length.</summary>
    public static int TermKey(int field, ReadOnlySpan<byte> term, Span<byte> destination)
    {
        BinaryPrimitives.WriteUInt16BigEndian(destination, checked((ushort)field));
        term.CopyTo(destination[FieldPrefixSize..]);
        return FieldPrefixSize + term.Length;
    }

    public static void EntryKey(long entry, Span<byte> destination) => BinaryPrimitives.WriteInt64BigEndian(destination, entry);

    public static long ReadInt64(ReadOnlySpan<byte> value) => BinaryPrimitives.ReadInt64LittleEndian(value);
}
