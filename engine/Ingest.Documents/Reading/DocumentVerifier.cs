using System.Buffers.Binary;
using System.Text;
using Ingest.Documents.Compression;
using Ingest.Documents.Ids;
using Ingest.Documents.Records;
using Ingest.Storage;

namespace Ingest.Documents.Reading;

/// <summary>
/// Reads every live document of a snapshot the way a reader would: each compressed body must decompress,
/// with a dictionary the store holds, to its recorded length; each dictionary's reference count must equal
/// the documents compressed with it, and one no document uses must be its collection's current one; each
/// collection's stored-bytes counter must equal the sum of its stored bodies.
/// </summary>
internal static class DocumentVerifier
{
    private const int MaxProblems = 1000;

    public static DocumentVerificationReport Verify(ReadTransaction tx, DecompressorPool pool)
    {
        var problems = new List<string>();
        var uses = new Dictionary<uint, long>();
        var stored = new Dictionary<string, long>(StringComparer.Ordinal);
        long documents = 0;
        long compressed = 0;
        var dictionaries = tx.OpenTree(TreeNames.Dictionaries);
        var byEtag = tx.OpenTree(TreeNames.ByEtag);
        using (var decoder = new BodyDecoder(pool))
        {
            var cursor = byEtag?.CreateCursor();
            for (var ok = cursor?.First() ?? false; ok; ok = cursor!.MoveNext())
            {
                documents++;
                var etag = EtagKey.Read(cursor!.Key);
                var value = cursor.Value;
                var header = DocumentRecord.Read(value);
                var body = header.Body(value);
                var collection = IdKey.FoldToString(Encoding.UTF8.GetString(header.Collection(value)));
                stored[collection] = stored.GetValueOrDefault(collection) + body.Length;
                if ((header.Flags & (uint)DocumentFlags.Compressed) == 0)
                {
                    continue;
                }

                compressed++;
                try
                {
                    var dictionaryId = CompressedBodyHeader.Read(body).DictionaryId;
                    uses[dictionaryId] = uses.GetValueOrDefault(dictionaryId) + 1;
                    decoder.Decode(etag, body, dictionaries);
                }
                catch (InvalidDataException ex)
                {
                    Add(problems, $"document '{Encoding.UTF8.GetString(header.Id(value))}' (etag {etag}): {ex.Message}");
                }
            }
        }

        var count = CheckDictionaries(tx, uses, problems);
        CheckCollections(tx, stored, problems);
        return new DocumentVerificationReport(documents, compressed, count, problems);
    }

    private static int CheckDictionaries(ReadTransaction tx, Dictionary<uint, long> uses, List<string> problems)
    {
        var dictionaries = tx.OpenTree(TreeNames.Dictionaries);
        var references = tx.OpenFixedSizeTree(TreeNames.DictionaryReferences);
        var states = tx.OpenTree(TreeNames.Compression);
        var count = 0;
        var cursor = dictionaries?.CreateCursor();
        for (var ok = cursor?.First() ?? false; ok; ok = cursor!.MoveNext())
        {
            count++;
            var id = BinaryPrimitives.ReadUInt32BigEndian(cursor!.Key);
            var recorded = references != null && references.TryGet(id, out var value) ? BitConverter.ToInt64(value) : 0;
            var used = uses.GetValueOrDefault(id);
            if (recorded != used)
            {
                Add(problems, $"dictionary {id}: its reference count is {recorded}, but {used} documents are compressed with it");
            }

            var record = DictionaryRecord.Read(cursor.Value);
            var current = states != null && states.TryGet(record.Collection(cursor.Value), out var state) && RecordIO.Read<CompressionStateRecord>(state).DictionaryId == id;
            if (used == 0 && !current)
            {
                Add(problems, $"dictionary {id}: no document uses it and it is not its collection's current dictionary, yet it was not dropped");
            }
        }

        return count;
    }

    private static void CheckCollections(ReadTransaction tx, Dictionary<string, long> stored, List<string> problems)
    {
        var states = tx.OpenTree(TreeNames.Compression);
        var collections = tx.OpenTree(TreeNames.Collections);
        var cursor = collections?.CreateCursor();
        for (var ok = cursor?.First() ?? false; ok; ok = cursor!.MoveNext())
        {
            var folded = Encoding.UTF8.GetString(cursor!.Key);
            var stats = RecordIO.Read<CollectionStatsRecord>(cursor.Value);
            var counted = states != null && states.TryGet(cursor.Key, out var state) ? RecordIO.Read<CompressionStateRecord>(state).StoredBytes : stats.Bytes;
            var actual = stored.GetValueOrDefault(folded);
            if (counted != actual)
            {
                Add(problems, $"collection '{folded}': its stored-bytes counter says {counted}, its documents hold {actual}");
            }
        }
    }

    private static void Add(List<string> problems, string problem)
    {
        if (problems.Count < MaxProblems)
        {
            problems.Add(problem);
        }
    }
}
