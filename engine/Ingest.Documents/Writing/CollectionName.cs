using System.Text;
using Ingest.Documents.Ids;
using Ingest.Documents.Records;

namespace Ingest.Documents.Writing;

/// <summary>A collection name as written, with its folded key and the name of its etag set tree.</summary>
internal sealed class CollectionName
{
    public CollectionName(string name)
    {
        Name = name;
        Utf8 = Encoding.UTF8.GetBytes(name);
        Folded = IdKey.FoldToString(name);
        FoldedUtf8 = Encoding.UTF8.GetBytes(Folded);
        TreeName = TreeNames.CollectionPrefix + Folded;
    }

    public string Name { get; }

    public byte[] Utf8 { get; }

    public string Folded { get; }

    public byte[] FoldedUtf8 { get; }

    public string TreeName { get; }
}
