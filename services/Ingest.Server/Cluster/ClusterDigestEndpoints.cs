using System.Buffers;
using System.Buffers.Binary;
using System.Globalization;
using System.Security.Cryptography;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.Cluster;

/// <summary>
/// <c>GET /cluster/digest?collection=C</c>: what a node holds of a collection, in terms every node shares, so two
/// nodes (or a node and a model) can be compared: <c>{"digest":"...","documents":N,"positions":{"topic-partition":next,...}}</c>.
/// The digest is SHA-256 over the collection's live documents in id order (the case-folded ids' UTF-8 order), each
/// contributing its id's UTF-8 length (u32 LE), the id as written, and the SHA-256 of its JSON body (decompressed):
/// nothing local to a store (etags, write order, compression, last-modified times) enters it. The positions are the
/// store's resume positions per topic partition (the next offset to apply), read in the same snapshot. Works in both modes.
/// </summary>
public static class ClusterDigestEndpoints
{
    private const int HashBytes = 32;

    public static IEndpointRouteBuilder MapClusterDigestEndpoints(this IEndpointRouteBuilder endpoints)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        endpoints.MapGet("/cluster/digest", GetDigest).RequireScope(ApiScopes.Read);
        return endpoints;
    }

    private static IResult GetDigest(HttpRequest request, DocumentStore store)
    {
        if (!QueryParameters.TryGetCollection(request, out var collection, out var problem))
        {
            return problem!;
        }

        if (collection is null)
        {
            return ApiProblems.BadParameter("collection", null, "name the collection to digest, e.g. ?collection=Orders");
        }

        using var reader = store.BeginRead();
        if (!reader.CollectionExists(collection))
        {
            return ApiProblems.NotFound("Collection not found", $"This node holds no collection '{ApiProblems.Shorten(collection)}'.");
        }

        var (digest, documents) = Digest(reader, collection);
        var buffer = new ArrayBufferWriter<byte>(256);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteString("collection", collection);
            writer.WriteString("digest", digest);
            writer.WriteNumber("documents", documents);
            writer.WriteStartObject("positions");
            foreach (var (key, next) in Positions(reader))
            {
                writer.WriteNumber(key, next);
            }

            writer.WriteEndObject();
            writer.WriteEndObject();
        }

        return TypedResults.Bytes(buffer.WrittenMemory.ToArray(), "application/json");
    }

    /// <summary>The digest of the collection's live documents in id order, and how many there are; one pass, nothing kept per document.</summary>
    internal static (string Digest, long Documents) Digest(DocumentReader reader, string collection)
    {
        using var digest = IncrementalHash.CreateHash(HashAlgorithmName.SHA256);
        Span<byte> entry = stackalloc byte[4 + HashBytes];
        long documents = 0;
        foreach (var document in reader.GetCollectionById(collection))
        {
            var id = document.IdUtf8;
            BinaryPrimitives.WriteUInt32LittleEndian(entry, (uint)id.Length);
            SHA256.HashData(document.Body, entry[4..]);
            digest.AppendData(entry[..4]);
            digest.AppendData(id);
            digest.AppendData(entry[4..]);
            documents++;
        }

        Span<byte> result = stackalloc byte[HashBytes];
        digest.GetHashAndReset(result);
        return (Convert.ToHexStringLower(result), documents);
    }

    /// <summary>
    /// The stored resume positions as <c>topic-partition</c> → next offset, ordered by topic and partition. Positions are
    /// stored under "source/topic"; two sources reading one topic give the lower of their positions (all below it applied by both).
    /// </summary>
    internal static List<KeyValuePair<string, long>> Positions(DocumentReader reader)
    {
        var byTopic = new SortedDictionary<(string Topic, int Partition), long>(TopicPartitionOrder.Instance);
        foreach (var stored in reader.GetSourcePositions())
        {
            var origin = stored.Position.Source;
            var slash = origin.IndexOf('/', StringComparison.Ordinal);
            var topic = slash < 0 ? origin : origin[(slash + 1)..];
            var key = (topic, stored.Position.Partition);
            byTopic[key] = byTopic.TryGetValue(key, out var other) ? Math.Min(other, stored.Position.NextOffset) : stored.Position.NextOffset;
        }

        var result = new List<KeyValuePair<string, long>>(byTopic.Count);
        foreach (var ((topic, partition), next) in byTopic)
        {
            result.Add(new(string.Create(CultureInfo.InvariantCulture, $"{topic}-{partition}"), next));
        }

        return result;
    }

    private sealed class TopicPartitionOrder : IComparer<(string Topic, int Partition)>
    {
        public static readonly TopicPartitionOrder Instance = new();

        public int Compare((string Topic, int Partition) x, (string Topic, int Partition) y)
        {
            var topic = string.CompareOrdinal(x.Topic, y.Topic);
            return topic != 0 ? topic : x.Partition.CompareTo(y.Partition);
        }
    }
}
