namespace Ingest.Benchmarks.Queries;

/// <summary>
/// One query shape of the queries benchmark, as the Ingest query text; each baseline answers the same question its own
/// way (<see cref="SqliteQuerySystem"/>, <see cref="LuceneQuerySystem"/>). Filters return the total and a first page of
/// 100 ids, as a client paging through results sees them.
/// </summary>
internal sealed record QueryWorkload(string Name, string Query)
{
    public const string Equality = "equality";
    public const string Range = "range";
    public const string StartsWith = "starts-with";
    public const string And = "and";
    public const string OrderByLimit = "order-by-limit";
    public const string GroupBy = "group-by";
    public const string TimeHistogram = "time-histogram";
    public const string TwoFacets = "two-facets";
    public const string Search = "search";

    /// <summary>The histogram's month (the orders span 2024) and its 5-minute buckets, in UTC ticks.</summary>
    public static readonly DateTime MonthStart = new(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc);

    public static readonly DateTime MonthEnd = new(2024, 4, 1, 0, 0, 0, DateTimeKind.Utc);

    public const long BucketTicks = 5 * TimeSpan.TicksPerMinute;

    /// <summary>The range facet's boundaries over Total.</summary>
    public static readonly double[] TotalRanges = [100, 1000, 10_000];

    private const string From = "from index 'Orders/Queries' ";

    public static IReadOnlyList<QueryWorkload> All { get; } =
    [
        new(Equality, From + "where Company = 'companies/7-a' select Id limit 100"),
        new(Range, From + "where Total between 1000 and 1100 select Id limit 100"),
        new(StartsWith, From + "where startsWith(Company, 'companies/1') select Id limit 100"),
        new(And, From + "where Status = 'shipped' and Company = 'companies/7-a' select Id limit 100"),
        new(OrderByLimit, From + "select Id order by Total desc limit 100"),
        new(GroupBy, From + "group by Status select count(), sum(Total)"),
        new(TimeHistogram, From + "where OrderedAt between '2024-03-01T00:00:00Z' and '2024-03-31T23:59:59.9999999Z' group by time(OrderedAt, '5m') select count(), sum(Total)"),
        new(TwoFacets, From + "select facet(Status), facet(Total, ranges(100, 1000, 10000))"),
        new(Search, From + "where search(ProductName, 'mutton') select Id limit 100"),
    ];
}
