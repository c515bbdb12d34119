using System.Globalization;
using System.Text;
using Ingest.Benchmarks.Baselines.Sqlite;
using Microsoft.Data.Sqlite;

namespace Ingest.Benchmarks.Documents;

/// <summary>
/// The SQLite baseline: WAL, synchronous=FULL (each commit fsyncs the WAL), 256 MiB page cache per
/// connection, prepared statements through SQLitePCLRaw.
/// <code>
/// docs(id TEXT PRIMARY KEY COLLATE NOCASE, collection TEXT, etag INTEGER, body TEXT) + UNIQUE INDEX on etag
/// tombstones(etag INTEGER PRIMARY KEY, id TEXT, collection TEXT)
/// </code>
/// The etag index and tombstone table give it what the changes feed needs, as the Ingest store has.
/// SQLite does not validate the JSON (the Ingest store does, once per put). Writers share one
/// connection behind a lock: SQLite has one writer at a time anyway, and this spares it the busy
/// handler's sleeps.
/// </summary>
internal sealed class SqliteDocumentSystem : IDocumentSystem
{
    private const int CacheKibibytes = 256 * 1024;
    private readonly string _path;
    private readonly SqliteConnection _connection;
    private readonly SqliteStatement _begin;
    private readonly SqliteStatement _commit;
    private readonly SqliteStatement _put;
    private readonly SqliteStatement _delete;
    private readonly SqliteStatement _tombstone;
    private readonly Lock _writeLock = new();
    private long _etag;

    public SqliteDocumentSystem(string directory)
    {
        _path = Path.Combine(directory, "documents.db");
        _connection = OpenConnection(_path);
        Exec(_connection, "PRAGMA journal_mode=WAL");
        Exec(_connection, "PRAGMA synchronous=FULL");
        if (Exec(_connection, "PRAGMA synchronous") != "2")
        {
            throw new InvalidOperationException("SQLite refused synchronous=FULL.");
        }

        Exec(_connection, "CREATE TABLE docs (id TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, collection TEXT NOT NULL, etag INTEGER NOT NULL, body TEXT NOT NULL)");
        Exec(_connection, "CREATE UNIQUE INDEX docs_by_etag ON docs(etag)");
        Exec(_connection, "CREATE TABLE tombstones (etag INTEGER PRIMARY KEY, id TEXT NOT NULL, collection TEXT NOT NULL)");
        _begin = new SqliteStatement(_connection, "BEGIN IMMEDIATE");
        _commit = new SqliteStatement(_connection, "COMMIT");
        _put = new SqliteStatement(_connection, "INSERT INTO docs (id, collection, etag, body) VALUES (?1, ?2, ?3, ?4) ON CONFLICT(id) DO UPDATE SET id = excluded.id, collection = excluded.collection, etag = excluded.etag, body = excluded.body");
        _delete = new SqliteStatement(_connection, "DELETE FROM docs WHERE id = ?1");
        _tombstone = new SqliteStatement(_connection, "INSERT INTO tombstones (etag, id, collection) VALUES (?1, ?2, ?3)");
    }

    public string Name => "sqlite";

    public string Description =>
        $"SQLite {SQLitePCL.raw.sqlite3_libversion().utf8_to_string()}, journal_mode=WAL, synchronous=FULL, id TEXT PRIMARY KEY COLLATE NOCASE, body TEXT, etag index";

    public void PutBatch(OrderDataset data, int from, int count)
    {
        lock (_writeLock)
        {
            _begin.Execute();
            for (var i = from; i < from + count; i++)
            {
                Put(data.Ids[i], data.Bodies[i]);
            }

            _commit.Execute();
        }
    }

    public void PutSingle(string id, byte[] json)
    {
        lock (_writeLock)
        {
            _begin.Execute();
            Put(id, json);
            _commit.Execute();
        }
    }

    public void DeleteBatch(OrderDataset data, int from, int count)
    {
        lock (_writeLock)
        {
            _begin.Execute();
            for (var i = from; i < from + count; i++)
            {
                _delete.BindText(1, data.Ids[i]);
                _delete.Step();
                var deleted = _delete.Changes > 0;
                _delete.Reset();
                if (deleted)
                {
                    _tombstone.BindInt64(1, ++_etag);
                    _tombstone.BindText(2, data.Ids[i]);
                    _tombstone.BindText(3, OrderDataset.Collection);
                    _tombstone.Execute();
                }
            }

            _commit.Execute();
        }
    }

    public long ScanChanges()
    {
        using var connection = OpenConnection(_path);
        using var begin = new SqliteStatement(connection, "BEGIN");
        using var end = new SqliteStatement(connection, "COMMIT");
        using var scan = new SqliteStatement(connection, "SELECT etag, id, body, 0 FROM docs WHERE etag > ?1 UNION ALL SELECT etag, id, NULL, 1 FROM tombstones WHERE etag > ?1 ORDER BY etag");
        begin.Execute();
        scan.BindInt64(1, 0);
        long count = 0;
        long bytes = 0;
        while (scan.Step())
        {
            bytes += scan.ColumnBlob(2).Length + scan.ColumnBlob(1).Length;
            count++;
        }

        scan.Reset();
        end.Execute();
        GC.KeepAlive(bytes);
        return count;
    }

    public IDocumentReadSession OpenReadSession() => new ReadSession(_path);

    public void Dispose()
    {
        _begin.Dispose();
        _commit.Dispose();
        _put.Dispose();
        _delete.Dispose();
        _tombstone.Dispose();
        _connection.Dispose();
    }

    private void Put(string id, byte[] json)
    {
        _put.BindText(1, id);
        _put.BindText(2, OrderDataset.Collection);
        _put.BindInt64(3, ++_etag);
        _put.BindText(4, json);
        _put.Execute();
    }

    private static SqliteConnection OpenConnection(string path)
    {
        var builder = new SqliteConnectionStringBuilder { DataSource = path, Mode = SqliteOpenMode.ReadWriteCreate, Pooling = false };
        var connection = new SqliteConnection(builder.ToString());
        try
        {
            connection.Open();
            Exec(connection, string.Create(CultureInfo.InvariantCulture, $"PRAGMA cache_size=-{CacheKibibytes}"));
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    private static string? Exec(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        return Convert.ToString(command.ExecuteScalar(), CultureInfo.InvariantCulture);
    }

    private sealed class ReadSession : IDocumentReadSession
    {
        private readonly SqliteConnection _connection;
        private readonly SqliteStatement _begin;
        private readonly SqliteStatement _snapshot;
        private readonly SqliteStatement _end;
        private readonly SqliteStatement _get;
        private readonly byte[] _key = new byte[1024];

        public ReadSession(string path)
        {
            _connection = OpenConnection(path);
            _begin = new SqliteStatement(_connection, "BEGIN");
            _snapshot = new SqliteStatement(_connection, "SELECT 1 FROM sqlite_schema LIMIT 1");
            _end = new SqliteStatement(_connection, "COMMIT");
            _get = new SqliteStatement(_connection, "SELECT body FROM docs WHERE id = ?1");
        }

        public void Begin()
        {
            _begin.Execute();
            _snapshot.Execute();
        }

        public int Get(string id)
        {
            var length = Encoding.UTF8.GetBytes(id, _key);
            _get.BindText(1, _key.AsSpan(0, length));
            var result = _get.Step() ? _get.ColumnBlob(0).Length : -1;
            _get.Reset();
            return result;
        }

        public void End() => _end.Execute();

        public void Dispose()
        {
            _begin.Dispose();
            _snapshot.Dispose();
            _end.Dispose();
            _get.Dispose();
            _connection.Dispose();
        }
    }
}
