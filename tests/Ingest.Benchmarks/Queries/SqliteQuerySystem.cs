using Ingest.Benchmarks.Baselines.Sqlite;
using Ingest.Benchmarks.Documents;
using Microsoft.Data.Sqlite;

namespace Ingest.Benchmarks.Queries;

/// <summary>
/// SQLite (WAL, 256 MiB page cache, as the indexing benchmark sets it up) with the queried values in columns, an index on
/// each queried column, and an FTS5 table for the product names:
/// <code>
/// orders(rowid INTEGER PRIMARY KEY, id TEXT, status TEXT, company TEXT, total REAL, ordered_at INTEGER)
/// indexes: orders(status), orders(company), orders(total), orders(ordered_at)
/// orders_fts USING fts5(product_names), rowid = orders.rowid
/// </code>
/// Each query is the SQL a developer would write for the question, its statements prepared once per session. The
/// 10,000,000-order pass runs only the map-reduce workloads, so it leaves out the FTS5 table (<paramref name="fullText"/>).
/// </summary>
internal sealed class SqliteQuerySystem : IQuerySystem
{
    private static readonly string[] OwnRow = [QueriesCommand.Sqlite];
    private readonly string _path;
    private readonly bool _fullText;
    private SqliteConnection? _loading;
    private SqliteStatement? _insert;
    private SqliteStatement? _insertText;

    public SqliteQuerySystem(string directory, bool fullText)
    {
        _path = Path.Combine(directory, "queries.db");
        _fullText = fullText;
    }

    public string Name => QueriesCommand.Sqlite;

    public string Description =>
        $"SQLite {SQLitePCL.raw.sqlite3_libversion().utf8_to_string()}, WAL, 256 MiB cache, an index per queried column{(_fullText ? ", FTS5 for product names" : string.Empty)}";

    public void Add(OrderChunk chunk)
    {
        if (_loading is null)
        {
            _loading = Open(SqliteOpenMode.ReadWriteCreate);
            Exec(_loading, "CREATE TABLE orders (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, status TEXT, company TEXT, total REAL, ordered_at INTEGER)");
            _insert = new SqliteStatement(_loading, "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
            if (_fullText)
            {
                Exec(_loading, "CREATE VIRTUAL TABLE orders_fts USING fts5(product_names)");
                _insertText = new SqliteStatement(_loading, "INSERT INTO orders_fts (rowid, product_names) VALUES (?1, ?2)");
            }
        }

        Exec(_loading, "BEGIN");
        for (var i = 0; i < chunk.Orders.Length; i++)
        {
            var order = chunk.Orders[i];
            var rowid = chunk.First + i + 1;
            _insert!.BindInt64(1, rowid);
            _insert.BindText(2, chunk.Data.Ids[i]);
            _insert.BindText(3, order.Status);
            _insert.BindText(4, order.Company);
            _insert.BindDouble(5, order.Total);
            _insert.BindInt64(6, order.OrderedAtTicks);
            _insert.Execute();
            if (_insertText is not null)
            {
                _insertText.BindInt64(1, rowid);
                _insertText.BindText(2, order.ProductNames);
                _insertText.Execute();
            }
        }

        Exec(_loading, "COMMIT");
    }

    public void Complete()
    {
        var connection = _loading ?? throw new InvalidOperationException("no orders were added");
        _insert?.Dispose();
        _insertText?.Dispose();
        Exec(connection, "CREATE INDEX orders_status ON orders(status)");
        Exec(connection, "CREATE INDEX orders_company ON orders(company)");
        Exec(connection, "CREATE INDEX orders_total ON orders(total)");
        Exec(connection, "CREATE INDEX orders_ordered_at ON orders(ordered_at)");
        Exec(connection, "ANALYZE");
        connection.Dispose();
        _loading = null;
    }

    public IReadOnlyList<string> Rows(QueryWorkload workload) => OwnRow;

    public IQuerySession OpenSession() => new Session(Open(SqliteOpenMode.ReadOnly), _fullText);

    public void Dispose()
    {
        _insert?.Dispose();
        _insertText?.Dispose();
        _loading?.Dispose();
    }

    private SqliteConnection Open(SqliteOpenMode mode)
    {
        var builder = new SqliteConnectionStringBuilder { DataSource = _path, Mode = mode, Pooling = false };
        var connection = new SqliteConnection(builder.ToString());
        connection.Open();
        if (mode != SqliteOpenMode.ReadOnly)
        {
            Exec(connection, "PRAGMA journal_mode=WAL");
        }

        Exec(connection, "PRAGMA cache_size=-262144");
        return connection;
    }

    private static void Exec(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }

    private sealed class Session : IQuerySession
    {
        private const string Page = " LIMIT 100";
        private readonly SqliteConnection _connection;
        private readonly Dictionary<string, SqliteStatement[]> _statements = [];

        public Session(SqliteConnection connection, bool fullText)
        {
            _connection = connection;
            var month = $"ordered_at >= {QueryWorkload.MonthStart.Ticks} AND ordered_at <= {QueryWorkload.MonthEnd.Ticks - 1}";
            var ranges = QueryWorkload.TotalRanges;
            Add(QueryWorkload.Equality, "FROM orders WHERE company = 'companies/7-a'");
            Add(QueryWorkload.Range, "FROM orders WHERE total BETWEEN 1000 AND 1100");
            Add(QueryWorkload.StartsWith, "FROM orders WHERE company >= 'companies/1' AND company < 'companies/2'");
            Add(QueryWorkload.And, "FROM orders WHERE status = 'shipped' AND company = 'companies/7-a'");
            _statements[QueryWorkload.OrderByLimit] = [Prepare("SELECT count(*) FROM orders"), Prepare("SELECT id FROM orders ORDER BY total DESC" + Page)];
            _statements[QueryWorkload.GroupBy] = [Prepare("SELECT status, count(*), sum(total) FROM orders GROUP BY status")];
            _statements[QueryWorkload.TimeHistogram] =
                [Prepare($"SELECT ordered_at / {QueryWorkload.BucketTicks}, count(*), sum(total) FROM orders WHERE {month} GROUP BY 1 ORDER BY 1")];
            _statements[QueryWorkload.TwoFacets] =
            [
                Prepare("SELECT status, count(*) FROM orders GROUP BY status ORDER BY 2 DESC, 1"),
                Prepare($"SELECT CASE WHEN total < {ranges[0]} THEN 0 WHEN total < {ranges[1]} THEN 1 WHEN total < {ranges[2]} THEN 2 ELSE 3 END, count(*) FROM orders GROUP BY 1"),
            ];
            if (fullText)
            {
                _statements[QueryWorkload.Search] =
                [
                    Prepare("SELECT count(*) FROM orders_fts WHERE orders_fts MATCH 'mutton'"),
                    Prepare("SELECT o.id FROM orders_fts f JOIN orders o ON o.rowid = f.rowid WHERE orders_fts MATCH 'mutton'" + Page),
                ];
            }

            _statements[QueryWorkload.MrRevenuePerHour] =
                [Prepare($"SELECT ordered_at / {QueryWorkload.HourTicks}, status, sum(total) FROM orders WHERE {month} GROUP BY 1, 2")];
            _statements[QueryWorkload.MrTopCompanies] =
                [Prepare("SELECT company, sum(total) AS revenue FROM orders GROUP BY company ORDER BY revenue DESC LIMIT 10")];
            _statements[QueryWorkload.MrCountPerStatus] = [Prepare("SELECT status, count(*) FROM orders GROUP BY status")];
        }

        public long Run(QueryWorkload workload, string row)
        {
            long checksum = 0;
            foreach (var statement in _statements[workload.Question])
            {
                while (statement.Step())
                {
                    checksum += statement.ColumnInt64(0) + statement.ColumnBlob(0).Length;
                }

                statement.Reset();
            }

            return checksum;
        }

        public void Dispose()
        {
            foreach (var statements in _statements.Values)
            {
                foreach (var statement in statements)
                {
                    statement.Dispose();
                }
            }

            _connection.Dispose();
        }

        /// <summary>A filter's total (count) and first page of ids.</summary>
        private void Add(string workload, string from) =>
            _statements[workload] = [Prepare("SELECT count(*) " + from), Prepare("SELECT id " + from + Page)];

        private SqliteStatement Prepare(string sql) => new(_connection, sql);
    }
}
