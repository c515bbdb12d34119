using Lucene.Net.Analysis.Standard;
using Lucene.Net.Documents;
using Lucene.Net.Index;
using Lucene.Net.Search;
using Lucene.Net.Store;
using Lucene.Net.Util;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// Lucene.NET 4.8 on an FSDirectory, merged to one segment: a stored id, Status and Company as lower-cased
/// StringFields (Status also as sorted doc values), Total as a DoubleField plus doc values, OrderedAt as an Int64Field
/// of UTC ticks plus doc values, the product names as a TextField. Filters take the top 100 with the total hit count;
/// aggregations collect over doc values (<see cref="LuceneAggregateCollector"/>), as Lucene has no group by.
/// </summary>
internal sealed class LuceneQuerySystem : IQuerySystem
{
    private const LuceneVersion Version = LuceneVersion.LUCENE_48;
    private static readonly string[] OwnRow = [QueriesCommand.Lucene];
    private readonly FSDirectory _directory;
    private StandardAnalyzer? _analyzer;
    private IndexWriter? _writer;
    private DirectoryReader? _reader;
    private IndexSearcher? _searcher;

    public LuceneQuerySystem(string directory)
    {
        _directory = FSDirectory.Open(new DirectoryInfo(Path.Combine(directory, "lucene")));
    }

    public string Name => QueriesCommand.Lucene;

    public string Description => "Lucene.NET 4.8.0-beta00017, FSDirectory, one segment, doc values for Status/Total/OrderedAt";

    public void Add(OrderChunk chunk)
    {
        _analyzer ??= new StandardAnalyzer(Version);
        _writer ??= new IndexWriter(_directory, new IndexWriterConfig(Version, _analyzer) { OpenMode = OpenMode.CREATE, RAMBufferSizeMB = 256 });
        for (var i = 0; i < chunk.Orders.Length; i++)
        {
            var order = chunk.Orders[i];
            _writer.AddDocument(new Document
            {
                new StringField("id", chunk.Data.Ids[i], Field.Store.YES),
                new StringField("Status", order.Status, Field.Store.NO),
                new SortedDocValuesField("Status", new BytesRef(order.Status)),
                new StringField("Company", order.Company, Field.Store.NO),
                new DoubleField("Total", order.Total, Field.Store.NO),
                new DoubleDocValuesField("Total", order.Total),
                new Int64Field("OrderedAt", order.OrderedAtTicks, Field.Store.NO),
                new NumericDocValuesField("OrderedAt", order.OrderedAtTicks),
                new TextField("ProductName", order.ProductNames, Field.Store.NO),
            });
        }
    }

    public void Complete()
    {
        var writer = _writer ?? throw new InvalidOperationException("no orders were added");
        writer.ForceMerge(1);
        writer.Commit();
        writer.Dispose();
        _writer = null;
        _reader = DirectoryReader.Open(_directory);
        _searcher = new IndexSearcher(_reader);
    }

    /// <summary>The query shapes only: Lucene has no group by, and the map-reduce workloads compare against SQL engines.</summary>
    public IReadOnlyList<string> Rows(QueryWorkload workload) => workload.MapReduce ? [] : OwnRow;

    public IQuerySession OpenSession() => new Session(_searcher ?? throw new InvalidOperationException("load first"));

    public void Dispose()
    {
        _writer?.Dispose();
        _analyzer?.Dispose();
        _reader?.Dispose();
        _directory.Dispose();
    }

    private sealed class Session : IQuerySession
    {
        private const int Page = 100;
        private static readonly Sort ByTotalDescending = new(new SortField("Total", SortFieldType.DOUBLE, true));
        private readonly IndexSearcher _searcher;
        private readonly LuceneAggregateCollector _collector = new();

        public Session(IndexSearcher searcher)
        {
            _searcher = searcher;
        }

        public long Run(QueryWorkload workload, string row)
        {
            switch (workload.Name)
            {
                case QueryWorkload.Equality:
                    return Top(new TermQuery(new Term("Company", "companies/7-a")));
                case QueryWorkload.Range:
                    return Top(NumericRangeQuery.NewDoubleRange("Total", 1000, 1100, true, true));
                case QueryWorkload.StartsWith:
                    return Top(new PrefixQuery(new Term("Company", "companies/1")));
                case QueryWorkload.And:
                    return Top(new BooleanQuery
                    {
                        { new TermQuery(new Term("Status", "shipped")), Occur.MUST },
                        { new TermQuery(new Term("Company", "companies/7-a")), Occur.MUST },
                    });
                case QueryWorkload.OrderByLimit:
                    return Ids(_searcher.Search(new MatchAllDocsQuery(), null, Page, ByTotalDescending));
                case QueryWorkload.Search:
                    return Top(new TermQuery(new Term("ProductName", "mutton")));
                case QueryWorkload.TimeHistogram:
                    _collector.Start(LuceneAggregateCollector.Mode.Histogram);
                    _searcher.Search(NumericRangeQuery.NewInt64Range("OrderedAt", QueryWorkload.MonthStart.Ticks, QueryWorkload.MonthEnd.Ticks, true, false), _collector);
                    return _collector.Checksum();
                case QueryWorkload.GroupBy:
                    _collector.Start(LuceneAggregateCollector.Mode.GroupByStatus);
                    _searcher.Search(new MatchAllDocsQuery(), _collector);
                    return _collector.Checksum();
                default:
                    _collector.Start(LuceneAggregateCollector.Mode.Facets);
                    _searcher.Search(new MatchAllDocsQuery(), _collector);
                    return _collector.Checksum();
            }
        }

        public void Dispose()
        {
        }

        private long Top(Lucene.Net.Search.Query query) => Ids(_searcher.Search(query, Page));

        private long Ids(TopDocs top)
        {
            long checksum = top.TotalHits;
            foreach (var hit in top.ScoreDocs)
            {
                checksum += _searcher.Doc(hit.Doc).Get("id").Length;
            }

            return checksum;
        }
    }
}
