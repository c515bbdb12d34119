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
/// Each query is the SQL a developer would write for the question, its statements prepared once per session.
/// </summary>
internal sealed class SqliteQuerySystem : IQuerySystem
{
    private readonly string _path;

    public SqliteQuerySystem(string directory)
    {
        _path = Path.Combine(directory, "queries.db");
    }

    public string Name => QueriesCommand.Sqlite;

    public string Description =>
        $"SQLite {SQLitePCL.raw.sqlite3_libversion().utf8_to_string()}, WAL, 256 MiB cache, an index per queried column, FTS5 for product names";

    public void Load(OrderDataset data)
    {
        using var connection = Open(SqliteOpenMode.ReadWriteCreate);
        Exec(connection, "CREATE TABLE orders (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL, status TEXT, company TEXT, total REAL, ordered_at INTEGER)");
        Exec(connection, "CREATE VIRTUAL TABLE orders_fts USING fts5(product_names)");
        Exec(connection, "BEGIN");
        using (var insert = new SqliteStatement(connection, "INSERT INTO orders VALUES (?1, ?2, ?3, ?4, ?5, ?6)"))
        using (var insertText = new SqliteStatement(connection, "INSERT INTO orders_fts (rowid, product_names) VALUES (?1, ?2)"))
        {
            for (var i = 0; i < data.Count; i++)
            {
                var order = QueryOrder.Read(data.Bodies[i]);
                insert.BindInt64(1, i + 1);
                insert.BindText(2, data.Ids[i]);
                insert.BindText(3, order.Status);
                insert.BindText(4, order.Company);
                insert.BindDouble(5, order.Total);
                insert.BindInt64(6, order.OrderedAtTicks);
                insert.Execute();
                insertText.BindInt64(1, i + 1);
                insertText.BindText(2, order.ProductNames);
                insertText.Execute();
            }
        }

        Exec(connection, "COMMIT");
        Exec(connection, "CREATE INDEX orders_status ON orders(status)");
        Exec(connection, "CREATE INDEX orders_company ON orders(company)");
        Exec(connection, "CREATE INDEX orders_total ON orders(total)");
        Exec(connection, "CREATE INDEX orders_ordered_at ON orders(ordered_at)");
        Exec(connection, "ANALYZE");
    }

    public IQuerySession OpenSession() => new Session(Open(SqliteOpenMode.ReadOnly));

    public void Dispose()
    {
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

        public Session(SqliteConnection connection)
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
            _statements[QueryWorkload.Search] =
            [
                Prepare("SELECT count(*) FROM orders_fts WHERE orders_fts MATCH 'mutton'"),
                Prepare("SELECT o.id FROM orders_fts f JOIN orders o ON o.rowid = f.rowid WHERE orders_fts MATCH 'mutton'" + Page),
            ];
        }

        public long Run(QueryWorkload workload)
        {
            long checksum = 0;
            foreach (var statement in _statements[workload.Name])
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
