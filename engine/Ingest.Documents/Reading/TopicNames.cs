using System.Collections.Concurrent;
using System.Text;
using Ingest.Documents.Records;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Reading;

/// <summary>
/// The readers' side of docs/topics: topic names by number, cached for the store's life. Only numbers read
/// from a committed snapshot are cached, and those never change meaning (see <see cref="TopicKey"/>), so every
/// reader may share the cache. Thread-safe.
/// </summary>
internal sealed class TopicNames
{
    private readonly ConcurrentDictionary<uint, string> _names = new();

    /// <summary>The name of topic <paramref name="number"/>, read from <paramref name="topics"/> (the snapshot's docs/topics) on first use.</summary>
    public string NameOf(uint number, Tree? topics)
    {
        if (_names.TryGetValue(number, out var name))
        {
            return name;
        }

        Span<byte> key = stackalloc byte[TopicKey.NumberKeySize];
        TopicKey.WriteNumberKey(number, key);
        if (topics == null || !topics.TryGet(key, out var value))
        {
            throw new InvalidDataException($"A document names log topic number {number}, which docs/topics does not hold.");
        }

        name = Encoding.UTF8.GetString(value);
        return _names.GetOrAdd(number, name);
    }
}
