using System.Buffers.Binary;
using System.Text;
using Ingest.Documents.Records;
using Ingest.Storage;
using Ingest.Storage.Trees;

namespace Ingest.Documents.Writing;

/// <summary>
/// The writer's side of docs/topics: the number a record stores for a log position's topic, given on first use.
/// Topics are few (the sources' and the cluster's), so the numbers are cached by name; a number given in a
/// transaction that then fails is forgotten, so it is never published for a different topic. Writer thread only.
/// </summary>
internal sealed class TopicNumbers
{
    private readonly Dictionary<string, uint> _numbers = new(StringComparer.Ordinal);
    private readonly List<string> _given = [];
    private WriteTransaction? _tx;
    private Tree? _tree;

    public void Begin(WriteTransaction tx)
    {
        // A transaction that did not commit took its numbers with it.
        foreach (var topic in _given)
        {
            _numbers.Remove(topic);
        }

        _given.Clear();
        _tx = tx;
        _tree = null;
    }

    public void Committed() => _given.Clear();

    /// <summary>The topic's number, found in the store or given now.</summary>
    public uint NumberOf(string topic)
    {
        if (_numbers.TryGetValue(topic, out var number))
        {
            return number;
        }

        var tree = _tree ??= (_tx ?? throw new InvalidOperationException("No transaction.")).CreateTree(TreeNames.Topics);
        Span<byte> nameKey = stackalloc byte[TopicKey.MaxNameKeySize(topic)];
        nameKey = nameKey[..TopicKey.WriteNameKey(topic, nameKey)];
        if (tree.TryGet(nameKey, out var stored))
        {
            number = BinaryPrimitives.ReadUInt32LittleEndian(stored);
        }
        else
        {
            // Each topic holds two entries, so the count tells the numbers given.
            number = checked((uint)(tree.Count / 2) + 1);
            Span<byte> value = stackalloc byte[4];
            BinaryPrimitives.WriteUInt32LittleEndian(value, number);
            tree.Put(nameKey, value);
            Span<byte> numberKey = stackalloc byte[TopicKey.NumberKeySize];
            TopicKey.WriteNumberKey(number, numberKey);
            tree.Put(numberKey, Encoding.UTF8.GetBytes(topic));
            _given.Add(topic);
        }

        _numbers[topic] = number;
        return number;
    }
}
