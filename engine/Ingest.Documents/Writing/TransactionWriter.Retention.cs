using System.Buffers.Binary;
using System.Text;
using Ingest.Documents.Expiration;
using Ingest.Documents.Ids;
using Ingest.Documents.Records;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Writing;

/// <summary>
/// Retention rules on the writer thread: recording the rules in force, and the walk that re-stamps a
/// collection's stored documents (their expiry field and expiry tree entry) when its rule changes.
/// </summary>
internal sealed partial class TransactionWriter
{
    /// <summary>
    /// Makes <paramref name="rules"/> the rules in force and records them; a collection whose rule is new,
    /// changed or removed gets its stored documents re-stamped by <see cref="RestampExpiries"/>.
    /// </summary>
    public bool SetExpirationRules(IReadOnlyList<ExpirationRule> rules)
    {
        var tree = Transaction.CreateTree(TreeNames.ExpirationRules);
        var wanted = new Dictionary<string, ExpirationRule>(StringComparer.Ordinal);
        foreach (var rule in rules)
        {
            wanted[IdKey.FoldToString(rule.Collection)] = rule;
        }

        var changed = false;
        foreach (var (folded, stored) in ReadRuleRecords(tree))
        {
            if (wanted.TryGetValue(folded, out var rule))
            {
                if (rule.Keep == stored.Rule.Keep && rule.Field == stored.Rule.Field)
                {
                    wanted.Remove(folded); // unchanged: the walk (done or not) stands
                }

                continue;
            }

            if (stored.Rule.Keep != TimeSpan.Zero)
            {
                PutRuleRecord(tree, folded, stored.Rule with { Keep = TimeSpan.Zero }, walkedThrough: 0);
                changed = true;
            }
        }

        foreach (var (folded, rule) in wanted)
        {
            PutRuleRecord(tree, folded, rule, walkedThrough: 0);
            changed = true;
        }

        expiration.Rules = new ExpirationRules(rules);
        return changed;
    }

    /// <summary>
    /// Re-stamps up to <paramref name="budget"/> stored documents of collections whose rule changed, so a
    /// retention change applies to what is already stored. Returns the documents visited (0 = nothing to do).
    /// </summary>
    public int RestampExpiries(int budget)
    {
        var tree = Transaction.OpenTree(TreeNames.ExpirationRules);
        if (tree == null)
        {
            return 0;
        }

        var visited = 0;
        foreach (var (folded, progress) in ReadRuleRecords(tree))
        {
            if (visited >= budget)
            {
                break;
            }

            if (!progress.Restamping)
            {
                continue;
            }

            var etags = Transaction.OpenFixedSizeTree(TreeNames.CollectionPrefix + folded);
            var count = 0;
            var exhausted = true;
            if (etags != null)
            {
                var cursor = etags.CreateCursor();
                for (var ok = cursor.Seek(progress.RestampedThroughEtag + 1); ok; ok = cursor.MoveNext())
                {
                    if (visited + count >= budget)
                    {
                        exhausted = false;
                        break;
                    }

                    if (count == _walkEtags.Length)
                    {
                        Array.Resize(ref _walkEtags, count * 2);
                    }

                    _walkEtags[count++] = cursor.Key;
                }
            }

            for (var i = 0; i < count; i++)
            {
                Restamp(folded, _walkEtags[i]);
            }

            visited += count;
            if (exhausted && progress.Rule.Keep == TimeSpan.Zero)
            {
                tree.Delete(Encoding.UTF8.GetBytes(folded));
            }
            else
            {
                PutRuleRecord(tree, folded, progress.Rule, exhausted ? ExpirationRuleRecord.Done : _walkEtags[count - 1]);
            }

            visited = Math.Max(visited, 1); // finishing a walk is progress even over an empty collection
        }

        return visited;
    }

    private void Restamp(string folded, long etag)
    {
        Span<byte> etagKey = stackalloc byte[EtagKey.Size];
        var value = ReadDocument(etagKey, etag, "The collection index");
        var header = DocumentRecord.Read(value);
        var body = header.Body(value);
        var json = compression.Json(etag, header, body); // the stored body is kept as it is; rules read its JSON
        long explicitTicks;
        try
        {
            explicitTicks = ExpiryParser.ReadExplicit(json, maxJsonDepth);
        }
        catch (FormatException)
        {
            explicitTicks = 0; // written before expiration existed: an unreadable @expires was never an expiry
        }

        var current = header.HasExpiry ? header.ExpiresTicks(value) : 0;
        var wanted = expiration.Rules.Compute(folded, json, explicitTicks, header.LastModifiedTicks, maxJsonDepth);
        if (wanted == current)
        {
            return;
        }

        var afterNames = header.AfterNames;
        var position = header.Position(value); // kept as it is, after the expiry
        var size = afterNames + (wanted == 0 ? 0 : DocumentRecord.ExpiresSize) + position.Length + body.Length;
        var copy = Buffer(size);
        value[..afterNames].CopyTo(copy);
        position.CopyTo(copy[(size - body.Length - position.Length)..]);
        body.CopyTo(copy[(size - body.Length)..]);
        var updated = header;
        updated.Flags = wanted == 0 ? header.Flags & ~(uint)DocumentFlags.Expires : header.Flags | (uint)DocumentFlags.Expires;
        RecordIO.Write(copy, in updated);
        if (wanted != 0)
        {
            BinaryPrimitives.WriteInt64LittleEndian(copy[afterNames..], wanted);
        }

        // Ids are at most MaxIdBytes of UTF-8, so at most that many chars: no string per document of the walk.
        Span<char> id = stackalloc char[DocumentStoreOptions.MaxIdBytes];
        id = id[..Encoding.UTF8.GetChars(header.Id(value), id)];
        Span<byte> foldedId = stackalloc byte[IdKey.MaxKeyBytes(id.Length)];
        foldedId = foldedId[..IdKey.Fold(id, foldedId)];
        _byEtag.Put(etagKey, copy); // same etag: a new expiry is not a change readers of the feed must see
        if (current != 0)
        {
            DeleteExpiry(current, foldedId);
        }

        if (wanted != 0)
        {
            PutExpiry(wanted, foldedId, etag);
        }
    }

    /// <summary>The stored rules with their walk progress, by folded collection name.</summary>
    internal static List<(string Folded, ExpirationRuleProgress Progress)> ReadRuleRecords(Tree? tree)
    {
        var result = new List<(string, ExpirationRuleProgress)>();
        if (tree == null)
        {
            return result;
        }

        var cursor = tree.CreateCursor();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            var value = cursor.Value;
            var record = RecordIO.Read<ExpirationRuleRecord>(value);
            var field = record.FieldLength == 0 ? null : Encoding.UTF8.GetString(value.Slice(ExpirationRuleRecord.Size, record.FieldLength));
            var name = Encoding.UTF8.GetString(value.Slice(ExpirationRuleRecord.Size + record.FieldLength, record.NameLength));
            var rule = new ExpirationRule(name, TimeSpan.FromTicks(record.KeepTicks), field);
            result.Add((Encoding.UTF8.GetString(cursor.Key), new ExpirationRuleProgress(rule, record.WalkedThroughEtag != ExpirationRuleRecord.Done, record.WalkedThroughEtag)));
        }

        return result;
    }

    private void PutRuleRecord(Tree tree, string folded, ExpirationRule rule, long walkedThrough)
    {
        var field = rule.Field is null ? [] : Encoding.UTF8.GetBytes(rule.Field);
        var name = Encoding.UTF8.GetBytes(rule.Collection);
        var record = new ExpirationRuleRecord
        {
            KeepTicks = rule.Keep.Ticks,
            WalkedThroughEtag = walkedThrough,
            FieldLength = (ushort)field.Length,
            NameLength = (ushort)name.Length,
        };
        var value = Buffer(ExpirationRuleRecord.Size + field.Length + name.Length);
        RecordIO.Write(value, in record);
        field.CopyTo(value[ExpirationRuleRecord.Size..]);
        name.CopyTo(value[(ExpirationRuleRecord.Size + field.Length)..]);
        tree.Put(Encoding.UTF8.GetBytes(folded), value);
    }
}
