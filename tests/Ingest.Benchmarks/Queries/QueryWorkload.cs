namespace Ingest.Benchmarks.Queries;

/// <summary>
/// One query shape of the queries benchmark, as the Ingest query text; each baseline answers the same question its own
/// way (<see cref="SqliteQuerySystem"/>, <see cref="LuceneQuerySystem"/>, <see cref="DuckDbQuerySystem"/>). Filters
/// return the total and a first page of 100 ids, as a client paging through results sees them. A map-reduce workload
/// (<paramref name="MapReduce"/>) is a dashboard's aggregation over every order, measured on one thread;
/// <paramref name="TenMillion"/> ones run over the 10,000,000-order pass.
/// </summary>
internal sealed record QueryWorkload(string Name, string Query, bool MapReduce = false, bool TenMillion = false)
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
    public const string MrRevenuePerHour = "mr-revenue-per-hour";
    public const string MrTopCompanies = "mr-top-companies";
    public const string MrCountPerStatus = "mr-count-per-status";

    /// <summary>The suffix of the map-reduce workloads over 10,000,000 orders.</summary>
    public const string TenMillionSuffix = "-10m";

    /// <summary>Revenue per hour per status's buckets, in UTC ticks.</summary>
    public const long HourTicks = TimeSpan.TicksPerHour;

    /// <summary>The histogram's month (the orders span 2024) and its 5-minute buckets, in UTC ticks.</summary>
    public static readonly DateTime MonthStart = new(2024, 3, 1, 0, 0, 0, DateTimeKind.Utc);

    public static readonly DateTime MonthEnd = new(2024, 4, 1, 0, 0, 0, DateTimeKind.Utc);

    public const long BucketTicks = 5 * TimeSpan.TicksPerMinute;

    /// <summary>The range facet's boundaries over Total.</summary>
    public static readonly double[] TotalRanges = [100, 1000, 10_000];

    private const string From = "from index 'Orders/Queries' ";

    /// <summary>
    /// The map-reduce workloads' questions as Ingest's query-time aggregation answers them: a <c>group by</c> over the
    /// map index the shapes use (the same fields an automatic index of <c>from Orders</c> gets), named so a map-reduce
    /// index defined beside it never answers in its place.
    /// </summary>
    private static readonly (string Name, string Query)[] MapReduceQuestions =
    [
        (MrRevenuePerHour, From + "where OrderedAt between '2024-03-01T00:00:00Z' and '2024-03-31T23:59:59.9999999Z' group by time(OrderedAt, '1h'), Status select sum(Total) as Revenue"),
        (MrTopCompanies, From + "group by Company select sum(Total) as Revenue order by sum(Total) desc limit 10"),
        (MrCountPerStatus, From + "group by Status select count()"),
    ];

    /// <summary>The query shapes, over the 1,000,000 orders, measured on 1 and 2 threads.</summary>
    public static IReadOnlyList<QueryWorkload> Shapes { get; } =
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

    /// <summary>The map-reduce workloads: each question over the 1,000,000 orders, then over the 10,000,000.</summary>
    public static IReadOnlyList<QueryWorkload> MapReduceWorkloads { get; } =
    [
        .. MapReduceQuestions.Select(q => new QueryWorkload(q.Name, q.Query, MapReduce: true)),
        .. MapReduceQuestions.Select(q => new QueryWorkload(q.Name + TenMillionSuffix, q.Query, MapReduce: true, TenMillion: true)),
    ];

    public static IReadOnlyList<QueryWorkload> All { get; } = [.. Shapes, .. MapReduceWorkloads];

    /// <summary>The question a workload asks, the same for its 1,000,000- and 10,000,000-order variants (what the systems switch on).</summary>
    public string Question => TenMillion ? Name[..^TenMillionSuffix.Length] : Name;
}
