using Ingest.Benchmarks.Documents;
using Lucene.Net.Analysis.Standard;
using Lucene.Net.Documents;
using Lucene.Net.Index;
using Lucene.Net.Store;
using Lucene.Net.Util;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// Lucene.NET 4.8 on an FSDirectory: per order a StringField id, Company as a lower-cased StringField, each
/// ProductName as a TextField (StandardAnalyzer), Freight as a DoubleField, OrderedAt as an Int64Field of UTC ticks,
/// each product as a lower-cased StringField; a 256 MB RAM buffer (the Ingest batch budget) and one commit.
/// </summary>
internal sealed class LuceneIndexer : IBaselineIndexer
{
    private const LuceneVersion Version = LuceneVersion.LUCENE_48;
    private readonly string _path;
    private readonly FSDirectory _directory;
    private readonly StandardAnalyzer _analyzer = new(Version);
    private readonly IndexWriter _writer;
    private readonly OrderFields _fields = new();

    public LuceneIndexer(string directory)
    {
        _path = Path.Combine(directory, "lucene");
        _directory = FSDirectory.Open(new DirectoryInfo(_path));
        _writer = new IndexWriter(_directory, new IndexWriterConfig(Version, _analyzer) { OpenMode = OpenMode.CREATE, RAMBufferSizeMB = 256 });
    }

    public string Description => "Lucene.NET 4.8.0-beta00017, FSDirectory, StandardAnalyzer, 256 MB RAM buffer, one commit";

    public void Build(OrderDataset data)
    {
        for (var i = 0; i < data.Count; i++)
        {
            _writer.AddDocument(ToDocument(data.Ids[i], data.Bodies[i]));
        }

        _writer.Commit();
    }

    public void Churn(OrderDataset data, ChurnPlan plan)
    {
        foreach (var change in plan.Changes)
        {
            var id = new Term("id", data.Ids[change.Index]);
            if (change.NewBody is { } body)
            {
                _writer.UpdateDocument(id, ToDocument(data.Ids[change.Index], body));
            }
            else
            {
                _writer.DeleteDocuments(id);
            }
        }

        _writer.Commit();
    }

    public long IndexBytes() => new DirectoryInfo(_path).EnumerateFiles().Sum(f => f.Length);

    public void Dispose()
    {
        _writer.Dispose();
        _analyzer.Dispose();
        _directory.Dispose();
    }

    private Document ToDocument(string id, byte[] json)
    {
        _fields.Read(json);
        var document = new Document
        {
            new StringField("id", id, Field.Store.NO),
            new DoubleField("Freight", _fields.Freight, Field.Store.NO),
            new Int64Field("OrderedAt", _fields.OrderedAtTicks, Field.Store.NO),
        };
        if (_fields.Company is { } company)
        {
            document.Add(new StringField("Company", company, Field.Store.NO));
        }

        foreach (var name in _fields.ProductNames)
        {
            document.Add(new TextField("ProductName", name, Field.Store.NO));
        }

        foreach (var product in _fields.Products)
        {
            document.Add(new StringField("Products", product, Field.Store.NO));
        }

        return document;
    }
}
