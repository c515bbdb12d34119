using System.Globalization;
using Ingest.Benchmarks.Baselines.Sqlite;
using Ingest.Benchmarks.Documents;
using Microsoft.Data.Sqlite;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// SQLite (WAL, synchronous=FULL, 256 MiB page cache) with the five values in columns and the products in a table of
/// their own, a secondary index per field, everything in one transaction:
/// <code>
/// orders(rowid INTEGER PRIMARY KEY, id TEXT UNIQUE, company TEXT, product_names TEXT, freight REAL, ordered_at INTEGER)
/// products(order_rowid INTEGER, product TEXT)
/// indexes: orders(company), orders(product_names), orders(freight), orders(ordered_at), products(product), products(order_rowid)
/// </code>
/// The product names are one space-separated value in a B-tree index: SQLite has no word index outside FTS5.
/// </summary>
internal sealed class SqliteIndexer : IBaselineIndexer
{
    private readonly string _path;
    private readonly SqliteConnection _connection;
    private readonly SqliteStatement _begin;
    private readonly SqliteStatement _commit;
    private readonly SqliteStatement _insertOrder;
    private readonly SqliteStatement _insertProduct;
    private readonly SqliteStatement _rowidOf;
    private readonly SqliteStatement _updateOrder;
    private readonly SqliteStatement _deleteProducts;
    private readonly SqliteStatement _deleteOrder;
    private readonly OrderFields _fields = new();

    public SqliteIndexer(string directory)
    {
        _path = Path.Combine(directory, "index.db");
        var builder = new SqliteConnectionStringBuilder { DataSource = _path, Mode = SqliteOpenMode.ReadWriteCreate, Pooling = false };
        _connection = new SqliteConnection(builder.ToString());
        _connection.Open();
        Exec("PRAGMA journal_mode=WAL");
        Exec("PRAGMA synchronous=FULL");
        Exec("PRAGMA cache_size=-262144");
        Exec("CREATE TABLE orders (rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, company TEXT, product_names TEXT, freight REAL, ordered_at INTEGER)");
        Exec("CREATE TABLE products (order_rowid INTEGER NOT NULL, product TEXT NOT NULL)");
        Exec("CREATE INDEX orders_company ON orders(company)");
        Exec("CREATE INDEX orders_product_names ON orders(product_names)");
        Exec("CREATE INDEX orders_freight ON orders(freight)");
        Exec("CREATE INDEX orders_ordered_at ON orders(ordered_at)");
        Exec("CREATE INDEX products_product ON products(product)");
        Exec("CREATE INDEX products_order ON products(order_rowid)");
        _begin = new SqliteStatement(_connection, "BEGIN IMMEDIATE");
        _commit = new SqliteStatement(_connection, "COMMIT");
        _insertOrder = new SqliteStatement(_connection, "INSERT INTO orders (rowid, id, company, product_names, freight, ordered_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)");
        _insertProduct = new SqliteStatement(_connection, "INSERT INTO products (order_rowid, product) VALUES (?1, ?2)");
        _rowidOf = new SqliteStatement(_connection, "SELECT rowid FROM orders WHERE id = ?1");
        _updateOrder = new SqliteStatement(_connection, "UPDATE orders SET company = ?2, product_names = ?3, freight = ?4, ordered_at = ?5 WHERE rowid = ?1");
        _deleteProducts = new SqliteStatement(_connection, "DELETE FROM products WHERE order_rowid = ?1");
        _deleteOrder = new SqliteStatement(_connection, "DELETE FROM orders WHERE rowid = ?1");
    }

    public string Description =>
        $"SQLite {SQLitePCL.raw.sqlite3_libversion().utf8_to_string()}, journal_mode=WAL, synchronous=FULL, 5 columns + products table, an index per field, one transaction";

    public void Build(OrderDataset data)
    {
        _begin.Execute();
        for (var i = 0; i < data.Count; i++)
        {
            _fields.Read(data.Bodies[i]);
            _insertOrder.BindInt64(1, i + 1);
            _insertOrder.BindText(2, data.Ids[i]);
            BindValues(_insertOrder, 3);
            _insertOrder.Execute();
            InsertProducts(i + 1);
        }

        _commit.Execute();
    }

    public void Churn(OrderDataset data, ChurnPlan plan)
    {
        _begin.Execute();
        foreach (var change in plan.Changes)
        {
            _rowidOf.BindText(1, data.Ids[change.Index]);
            var rowid = _rowidOf.Step() ? _rowidOf.ColumnInt64(0) : throw new InvalidOperationException($"{data.Ids[change.Index]} is not in the index.");
            _rowidOf.Reset();
            _deleteProducts.BindInt64(1, rowid);
            _deleteProducts.Execute();
            if (change.NewBody is { } body)
            {
                _fields.Read(body);
                _updateOrder.BindInt64(1, rowid);
                BindValues(_updateOrder, 2);
                _updateOrder.Execute();
                InsertProducts(rowid);
            }
            else
            {
                _deleteOrder.BindInt64(1, rowid);
                _deleteOrder.Execute();
            }
        }

        _commit.Execute();
    }

    public long IndexBytes()
    {
        Exec("PRAGMA wal_checkpoint(TRUNCATE)");
        return long.Parse(Exec("PRAGMA page_count")!, CultureInfo.InvariantCulture) * long.Parse(Exec("PRAGMA page_size")!, CultureInfo.InvariantCulture);
    }

    public void Dispose()
    {
        foreach (var statement in new[] { _begin, _commit, _insertOrder, _insertProduct, _rowidOf, _updateOrder, _deleteProducts, _deleteOrder })
        {
            statement.Dispose();
        }

        _connection.Dispose();
    }

    /// <summary>Binds company, product names, freight and ordered-at to four parameters from <paramref name="first"/> on.</summary>
    private void BindValues(SqliteStatement statement, int first)
    {
        statement.BindText(first, _fields.Company ?? string.Empty);
        statement.BindText(first + 1, string.Join(' ', _fields.ProductNames));
        statement.BindDouble(first + 2, _fields.Freight);
        statement.BindInt64(first + 3, _fields.OrderedAtTicks);
    }

    private void InsertProducts(long rowid)
    {
        foreach (var product in _fields.Products)
        {
            _insertProduct.BindInt64(1, rowid);
            _insertProduct.BindText(2, product);
            _insertProduct.Execute();
        }
    }

    private string? Exec(string sql)
    {
        using var command = _connection.CreateCommand();
        command.CommandText = sql;
        return Convert.ToString(command.ExecuteScalar(), CultureInfo.InvariantCulture);
    }
}
