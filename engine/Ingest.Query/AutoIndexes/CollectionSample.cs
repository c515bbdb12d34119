using System.Text.Json;
using Ingest.Documents;

namespace Ingest.Query.AutoIndexes;

/// <summary>
/// The documents of a collection an automatic index's choices are made from: the oldest (as the collection's first
/// documents show its shape) and the newest (so a field that later documents brought is seen), at most
/// <c>documents</c> of each, parsed once for both the type guesses and the unknown-field check.
/// </summary>
internal sealed class CollectionSample : IDisposable
{
    // Newer documents are looked for among this many times the sample's etags before the collection's last etag: the
    // etags are shared by every collection, so the window is wider than the sample, and a bounded read either way.
    private const int NewestWindowFactor = 16;

    private readonly List<JsonDocument> _documents;

    private CollectionSample(long count, List<JsonDocument> documents)
    {
        Count = count;
        _documents = documents;
    }

    /// <summary>Documents in the collection (0: no such collection, or every document deleted).</summary>
    public long Count { get; }

    public IReadOnlyList<JsonDocument> Documents => _documents;

    public static CollectionSample Read(DocumentStore store, string collection, int documents)
    {
        using var reader = store.BeginRead();
        CollectionStats? stats = null;
        foreach (var candidate in reader.GetStats().Collections)
        {
            if (string.Equals(candidate.Name, collection, StringComparison.OrdinalIgnoreCase))
            {
                stats = candidate;
            }
        }

        var parsed = new List<JsonDocument>();
        if (stats is not { Count: > 0 } || documents == 0)
        {
            return new CollectionSample(stats?.Count ?? 0, parsed);
        }

        long lastOldest = 0;
        foreach (var document in reader.GetCollection(collection))
        {
            if (parsed.Count >= documents)
            {
                break;
            }

            Add(parsed, document.Body);
            lastOldest = document.Etag;
        }

        // The last documents of the window: a ring of bodies, parsed once the walk is over.
        var newestFrom = Math.Max(lastOldest, stats.LastEtag - ((long)documents * NewestWindowFactor));
        var newest = new Queue<byte[]>(documents);
        foreach (var document in reader.GetCollection(collection, newestFrom))
        {
            if (newest.Count == documents)
            {
                newest.Dequeue();
            }

            newest.Enqueue(document.Body.ToArray());
        }

        foreach (var body in newest)
        {
            Add(parsed, body);
        }

        return new CollectionSample(stats.Count, parsed);
    }

    public void Dispose()
    {
        foreach (var document in _documents)
        {
            document.Dispose();
        }

        _documents.Clear();
    }

    private static void Add(List<JsonDocument> parsed, ReadOnlySpan<byte> body) => Add(parsed, body.ToArray());

    private static void Add(List<JsonDocument> parsed, byte[] body)
    {
        try
        {
            parsed.Add(JsonDocument.Parse(body, new JsonDocumentOptions { MaxDepth = 1024 }));
        }
        catch (JsonException)
        {
            // A document the store accepted is valid JSON; a damaged one tells the sample nothing.
        }
    }
}
