using System.Buffers.Binary;
using System.Text;
using Ingest.Documents.Expiration;
using Ingest.Documents.Ids;
using Ingest.Documents.Records;
using Ingest.Storage;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Writing;

/// <summary>
/// Expiration on the writer thread: the expiry tree kept beside the documents, deleting what is due in
/// expiry order, and dead letters past their retention. Retention rules: TransactionWriter.Retention.cs.
/// </summary>
internal sealed partial class TransactionWriter
{
    private byte[] _expiredKeys = new byte[4096];
    private int[] _expiredKeyLengths = new int[256];
    private long[] _walkEtags = new long[256];

    private Tree ExpiryTree => _expiry ??= Transaction.CreateTree(TreeNames.Expiry);

    private void PutExpiry(long expiresTicks, ReadOnlySpan<byte> foldedId, long etag)
    {
        Span<byte> key = stackalloc byte[ExpiryKey.TicksSize + foldedId.Length];
        ExpiryKey.Write(key, expiresTicks, foldedId);
        Span<byte> value = stackalloc byte[8];
        BinaryPrimitives.WriteInt64LittleEndian(value, etag);
        ExpiryTree.Put(key, value);
    }

    private void DeleteExpiry(long expiresTicks, ReadOnlySpan<byte> foldedId)
    {
        Span<byte> key = stackalloc byte[ExpiryKey.TicksSize + foldedId.Length];
        ExpiryKey.Write(key, expiresTicks, foldedId);
        ExpiryTree.Delete(key);
    }

    /// <summary>
    /// Deletes up to <paramref name="max"/> documents whose expiry is at or before <paramref name="nowTicks"/>, earliest
    /// first, each through the ordinary delete (tombstone, counters, collection set).
    /// </summary>
    public ExpirationBatchResult DeleteExpired(long nowTicks, int max)
    {
        var tree = Transaction.OpenTree(TreeNames.Expiry);
        if (tree == null || max <= 0)
        {
            return new ExpirationBatchResult(0, false, new Dictionary<string, long>(StringComparer.Ordinal));
        }

        // Counted per collection entry (one per collection in the transaction); named once, at the end.
        var perEntry = new Dictionary<CollectionEntry, long>(ReferenceEqualityComparer.Instance);

        // Keys are copied out first: the deletes below change the tree the cursor walks.
        var count = 0;
        var used = 0;
        var more = false;
        var cursor = tree.CreateCursor();
        for (var ok = cursor.First(); ok && ExpiryKey.ReadTicks(cursor.Key) <= nowTicks; ok = cursor.MoveNext())
        {
            if (count == max)
            {
                more = true;
                break;
            }

            var key = cursor.Key;
            if (used + key.Length > _expiredKeys.Length)
            {
                Array.Resize(ref _expiredKeys, Math.Max(_expiredKeys.Length * 2, used + key.Length));
            }

            if (count == _expiredKeyLengths.Length)
            {
                Array.Resize(ref _expiredKeyLengths, count * 2);
            }

            key.CopyTo(_expiredKeys.AsSpan(used));
            _expiredKeyLengths[count++] = key.Length;
            used += key.Length;
        }

        long deleted = 0;
        var offset = 0;
        Span<byte> etagKey = stackalloc byte[EtagKey.Size];
        for (var i = 0; i < count; i++)
        {
            var key = _expiredKeys.AsSpan(offset, _expiredKeyLengths[i]);
            offset += key.Length;
            var ticks = ExpiryKey.ReadTicks(key);
            var foldedId = ExpiryKey.FoldedId(key);
            if (_ids.TryGet(foldedId, out var etagValue))
            {
                EtagKey.Write(etagKey, BinaryPrimitives.ReadInt64LittleEndian(etagValue));
                if (_byEtag.TryGet(etagKey, out var record) && DocumentRecord.Read(record).ExpiresTicks(record) == ticks)
                {
                    Delete(foldedId, default, expired: true, out var collection);
                    perEntry[collection!] = perEntry.GetValueOrDefault(collection!) + 1;
                    deleted++;
                    continue;
                }
            }

            // An entry no live document stands behind: never expected, but it must not be retried forever.
            tree.Delete(key);
        }

        if (_expiredKeys.Length > 1024 * 1024)
        {
            _expiredKeys = new byte[4096]; // a rare huge batch does not pin its buffer
        }

        var byCollection = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (var (entry, expired) in perEntry)
        {
            var name = Encoding.UTF8.GetString(entry.NameUtf8);
            byCollection[name] = byCollection.GetValueOrDefault(name) + expired;
        }

        return new ExpirationBatchResult(deleted, more, byCollection);
    }

    /// <summary>Deletes up to <paramref name="max"/> dead letters stored at or before <paramref name="cutoffTicks"/>, oldest first.</summary>
    public long DeleteDeadLettersBefore(long cutoffTicks, int max)
    {
        var deadLetters = Transaction.OpenTree(TreeNames.DeadLetters);
        if (deadLetters == null)
        {
            return 0;
        }

        var count = 0;
        var cursor = deadLetters.CreateCursor();
        for (var ok = cursor.First(); ok && count < max; ok = cursor.MoveNext())
        {
            if (DeadLetterRecord.Read(cursor.Value).StoredTicks > cutoffTicks)
            {
                break; // ids follow storing order
            }

            if (count == _walkEtags.Length)
            {
                Array.Resize(ref _walkEtags, count * 2);
            }

            _walkEtags[count++] = EtagKey.Read(cursor.Key);
        }

        for (var i = 0; i < count; i++)
        {
            DeleteDeadLetter(_walkEtags[i]);
        }

        return count;
    }
}
