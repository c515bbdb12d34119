using System.Buffers.Binary;

namespace Ingest.Indexing.Reduce;

/// <summary>
/// What a map-reduce index stores beside its map trees (<see cref="Storage.IndexLayout"/>), in the same environment
/// and the same batch transaction. Integers are little-endian unless said otherwise.
/// <code>
/// group key (in both trees), for each group key of the definition in order:
///   | 0x00 |                                        the document has no value for the key's field (null)
///   | 0x01 | varint length | value bytes |          the value's encoded term (Terms/): a keyword or bool term, a
///                                                    number's or datetime's 8 bytes, a time bucket's start as a
///                                                    datetime term; keyword values cut at KeyValueLimit bytes
///   self-delimiting, so a group key is a prefix of nothing but its own value keys
///
/// "reduce/groups" Tree: one entry per group with at least one document (a group that empties is deleted)
///   key:   | group key |
///   value: | documents u64 | per aggregate, in definition order, 16 bytes: | n i64 | slot 8 bytes |
///          count:         n = documents (with a field: documents with a value for it); slot unused (0)
///          sum, avg:      n = documents with a value; slot = the sum as an IEEE double (0 when n is 0)
///          min, max:      n = documents with a value; slot = the min (max) value's 8-byte term, cached from
///                         "reduce/values" after every batch that touched the group's values
///          countDistinct: n = distinct values in the group; slot unused
///
/// "reduce/values" Tree: per value field (a field some min, max or countDistinct reads), per group, per value:
///   key:   | value field number u16 big-endian | group key | value's encoded term |
///   value: | documents u64 |   how many of the group's documents have that value; deleted at 0
///   so a group's values are one key range in value order: min is its first key, max its last, a countDistinct is
///   the count of keys going 0 -> 1 minus those going 1 -> 0, and none of them needs the group's documents again
///   after a delete. min, max and countDistinct of one field share these keys.
/// </code>
/// What a document gives: a keyword or bool field each of its distinct values (a document with two tags is in two
/// groups and counts two distinct values); a number or datetime field its first value in document order (its
/// column, the value order by and query-time aggregates read).
/// </summary>
internal static class ReduceLayout
{
    public const string Groups = "reduce/groups";
    public const string Values = "reduce/values";

    public const int RecordHeaderSize = 8;
    public const int AggregateSize = 16;

    /// <summary>A group key stays under this many bytes so that a value key (field, group key, a 1,024-byte value) fits a tree key.</summary>
    public const int GroupKeyLimit = 900;

    public static int RecordSize(int aggregateCount) => RecordHeaderSize + (AggregateSize * aggregateCount);

    public static long ReadInt64(ReadOnlySpan<byte> value) => BinaryPrimitives.ReadInt64LittleEndian(value);
}
