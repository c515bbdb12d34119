using System.Globalization;
using DuckDB.NET.Data;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// DuckDB in process, in a database file, with the orders in one table loaded through its appender, as an analyst would
/// set it up for aggregations: columns, no indexes (DuckDB scans its compressed columns, skipping row groups by their
/// min/max), its default worker threads (one per core) within each query:
/// <code>
/// orders(row_id BIGINT, id VARCHAR, status VARCHAR, company VARCHAR, total DOUBLE, ordered_at TIMESTAMP, product_names VARCHAR)
/// </code>
/// Each query is the SQL an analyst would write for the question (<c>time_bucket</c>, <c>date_trunc</c>). The search is
/// <c>ILIKE '%mutton%'</c>, a scan: DuckDB's full-text extension is downloaded at run time, which this benchmark does
/// not do. The 10,000,000-order pass runs only the map-reduce workloads and leaves out the product names.
/// </summary>
internal sealed class DuckDbQuerySystem : IQuerySystem
{
    private static readonly string[] OwnRow = [QueriesCommand.DuckDb];
    private readonly string _connectionString;
    private readonly DuckDBConnection _connection;
    private readonly bool _productNames;
    private DuckDBAppender? _appender;

    public DuckDbQuerySystem(string directory, bool productNames)
    {
        _productNames = productNames;
        _connectionString = $"Data Source={Path.Combine(directory, "queries.duckdb")}";
        _connection = new DuckDBConnection(_connectionString);
        _connection.Open();
        Exec(_productNames
            ? "CREATE TABLE orders (row_id BIGINT, id VARCHAR, status VARCHAR, company VARCHAR, total DOUBLE, ordered_at TIMESTAMP, product_names VARCHAR)"
            : "CREATE TABLE orders (row_id BIGINT, id VARCHAR, status VARCHAR, company VARCHAR, total DOUBLE, ordered_at TIMESTAMP)");
    }

    public string Name => QueriesCommand.DuckDb;

    public string Description
    {
        get
        {
            using var command = _connection.CreateCommand();
            command.CommandText = "SELECT version(), current_setting('threads')";
            using var reader = command.ExecuteReader();
            reader.Read();
            return string.Create(CultureInfo.InvariantCulture, $"DuckDB {reader.GetValue(0)} (DuckDB.NET 1.5.6.1), database file, one table loaded with the appender, no indexes, {reader.GetValue(1)} worker threads per query");
        }
    }

    public void Add(OrderChunk chunk)
    {
        _appender ??= _connection.CreateAppender("orders");
        for (var i = 0; i < chunk.Orders.Length; i++)
        {
            var order = chunk.Orders[i];
            var row = _appender.CreateRow()
                .AppendValue((long)(chunk.First + i + 1))
                .AppendValue(chunk.Data.Ids[i])
                .AppendValue(order.Status)
                .AppendValue(order.Company)
                .AppendValue(order.Total)
                .AppendValue(new DateTime(order.OrderedAtTicks, DateTimeKind.Utc));
            if (_productNames)
            {
                row.AppendValue(order.ProductNames);
            }

            row.EndRow();
        }
    }

    public void Complete()
    {
        var appender = _appender ?? throw new InvalidOperationException("no orders were added");
        appender.Dispose();
        _appender = null;
        Exec("CHECKPOINT");
    }

    public IReadOnlyList<string> Rows(QueryWorkload workload) => OwnRow;

    /// <summary>A connection of the session's own to the same database (DuckDB.NET shares one database instance per file in a process).</summary>
    public IQuerySession OpenSession()
    {
        var connection = new DuckDBConnection(_connectionString);
        connection.Open();
        return new Session(connection, _productNames);
    }

    public void Dispose()
    {
        _appender?.Dispose();
        _connection.Dispose();
    }

    private void Exec(string sql)
    {
        using var command = _connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    private sealed class Session : IQuerySession
    {
        private const string Page = " LIMIT 100";
        private const string Month = "ordered_at >= TIMESTAMP '2024-03-01 00:00:00' AND ordered_at < TIMESTAMP '2024-04-01 00:00:00'";
        private readonly DuckDBConnection _connection;
        private readonly Dictionary<string, DuckDBCommand[]> _commands = [];

        public Session(DuckDBConnection connection, bool productNames)
        {
            _connection = connection;
            var ranges = QueryWorkload.TotalRanges;
            Filter(QueryWorkload.Equality, "FROM orders WHERE company = 'companies/7-a'");
            Filter(QueryWorkload.Range, "FROM orders WHERE total BETWEEN 1000 AND 1100");
            Filter(QueryWorkload.StartsWith, "FROM orders WHERE company LIKE 'companies/1%'");
            Filter(QueryWorkload.And, "FROM orders WHERE status = 'shipped' AND company = 'companies/7-a'");
            Add(QueryWorkload.OrderByLimit, "SELECT count(*) FROM orders", "SELECT id FROM orders ORDER BY total DESC" + Page);
            Add(QueryWorkload.GroupBy, "SELECT status, count(*), sum(total) FROM orders GROUP BY status");
            Add(QueryWorkload.TimeHistogram, $"SELECT time_bucket(INTERVAL '5 minutes', ordered_at) AS bucket, count(*), sum(total) FROM orders WHERE {Month} GROUP BY bucket ORDER BY bucket");
            Add(
                QueryWorkload.TwoFacets,
                "SELECT status, count(*) FROM orders GROUP BY status ORDER BY 2 DESC, 1",
                $"SELECT CASE WHEN total < {ranges[0]} THEN 0 WHEN total < {ranges[1]} THEN 1 WHEN total < {ranges[2]} THEN 2 ELSE 3 END, count(*) FROM orders GROUP BY 1");
            if (productNames)
            {
                Filter(QueryWorkload.Search, "FROM orders WHERE product_names ILIKE '%mutton%'");
            }

            Add(QueryWorkload.MrRevenuePerHour, $"SELECT date_trunc('hour', ordered_at) AS hour, status, sum(total) FROM orders WHERE {Month} GROUP BY hour, status");
            Add(QueryWorkload.MrTopCompanies, "SELECT company, sum(total) AS revenue FROM orders GROUP BY company ORDER BY revenue DESC LIMIT 10");
            Add(QueryWorkload.MrCountPerStatus, "SELECT status, count(*) FROM orders GROUP BY status");
        }

        public long Run(QueryWorkload workload, string row)
        {
            long checksum = 0;
            foreach (var command in _commands[workload.Question])
            {
                using var reader = command.ExecuteReader();
                while (reader.Read())
                {
                    for (var column = 0; column < reader.FieldCount; column++)
                    {
                        checksum += reader.GetValue(column) switch
                        {
                            string text => text.Length,
                            long number => number,
                            double number => (long)number,
                            DateTime time => time.Ticks,
                            _ => 1,
                        };
                    }
                }
            }

            return checksum;
        }

        public void Dispose()
        {
            foreach (var commands in _commands.Values)
            {
                foreach (var command in commands)
                {
                    command.Dispose();
                }
            }

            _connection.Dispose();
        }

        /// <summary>A filter's total (count) and first page of ids.</summary>
        private void Filter(string workload, string from) => Add(workload, "SELECT count(*) " + from, "SELECT id " + from + Page);

        private void Add(string workload, params string[] sql)
        {
            var commands = new DuckDBCommand[sql.Length];
            for (var i = 0; i < sql.Length; i++)
            {
                commands[i] = _connection.CreateCommand();
                commands[i].CommandText = sql[i];
            }

            _commands[workload] = commands;
        }
    }
}
