using System.Globalization;
using Ingest.Benchmarks.Storage;
using Microsoft.Data.Sqlite;

namespace Ingest.Benchmarks.Baselines.Sqlite;

/// <summary>
/// SQLite through Microsoft.Data.Sqlite in WAL mode with synchronous=FULL (each commit fsyncs the
/// WAL), one WITHOUT ROWID table (k BLOB PRIMARY KEY, v BLOB) per tree, prepared statements reused.
/// The page cache is raised from the 2 MiB default to 256 MiB per connection so the 1M-item tree
/// fits, as it does in LMDB's map: the baseline should lose on its engine, not on a small cache.
/// </summary>
internal sealed class SqliteStorageSystem : IKeyValueStore
{
    private const int CacheKibibytes = 256 * 1024;

    private readonly string _path;
    private readonly SqliteConnection _connection;
    private readonly SqliteStatement _begin;
    private readonly SqliteStatement _commit;
    private readonly SqliteStatement _rollback;
    private readonly List<string> _tables = [];
    private readonly List<TableStatements> _statements = [];

    public SqliteStorageSystem(string directory)
    {
        _path = Path.Combine(directory, "bench.db");
        _connection = OpenConnection(_path);

        var journalMode = Scalar(_connection, "PRAGMA journal_mode=WAL");
        if (!string.Equals(journalMode, "wal", StringComparison.OrdinalIgnoreCase))
        {
            throw new InvalidOperationException($"SQLite refused WAL mode: journal_mode is {journalMode}.");
        }

        Scalar(_connection, "PRAGMA synchronous=FULL");
        var synchronous = Scalar(_connection, "PRAGMA synchronous");
        if (synchronous != "2")
        {
            throw new InvalidOperationException($"SQLite refused synchronous=FULL: synchronous is {synchronous}.");
        }

        _begin = new SqliteStatement(_connection, "BEGIN IMMEDIATE");
        _commit = new SqliteStatement(_connection, "COMMIT");
        _rollback = new SqliteStatement(_connection, "ROLLBACK");
    }

    public string Name => "sqlite";

    public string Description =>
        $"SQLite {SQLitePCL.raw.sqlite3_libversion().utf8_to_string()} (Microsoft.Data.Sqlite), journal_mode=WAL, synchronous=FULL, cache_size {CacheKibibytes / 1024} MiB per connection";

    public TreeId OpenTree(string name)
    {
        var table = "t_" + name.Replace('-', '_');
        Scalar(_connection, $"CREATE TABLE IF NOT EXISTS \"{table}\" (k BLOB PRIMARY KEY, v BLOB) WITHOUT ROWID");
        _tables.Add(table);
        _statements.Add(new TableStatements(_connection, table));
        return new TreeId(_tables.Count - 1);
    }

    public IWriteTransaction BeginWrite()
    {
        _begin.Execute();
        return new WriteTransaction(this);
    }

    public IReadSession OpenReadSession() => new ReadSession(this);

    public void Dispose()
    {
        foreach (var statements in _statements)
        {
            statements.Dispose();
        }

        _begin.Dispose();
        _commit.Dispose();
        _rollback.Dispose();
        _connection.Dispose();
    }

    private static SqliteConnection OpenConnection(string path)
    {
        var builder = new SqliteConnectionStringBuilder
        {
            DataSource = path,
            Mode = SqliteOpenMode.ReadWriteCreate,
            Pooling = false,
        };
        var connection = new SqliteConnection(builder.ToString());
        try
        {
            connection.Open();
            Scalar(connection, string.Create(CultureInfo.InvariantCulture, $"PRAGMA cache_size=-{CacheKibibytes}"));
            return connection;
        }
        catch
        {
            connection.Dispose();
            throw;
        }
    }

    private static string? Scalar(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        return Convert.ToString(command.ExecuteScalar(), CultureInfo.InvariantCulture);
    }

    private sealed class TableStatements(SqliteConnection connection, string table) : IDisposable
    {
        public SqliteStatement Insert { get; } = new(connection, $"INSERT OR REPLACE INTO \"{table}\" (k, v) VALUES (?1, ?2)");

        public SqliteStatement Delete { get; } = new(connection, $"DELETE FROM \"{table}\" WHERE k = ?1");

        public void Dispose()
        {
            Insert.Dispose();
            Delete.Dispose();
        }
    }

    private sealed class WriteTransaction(SqliteStorageSystem system) : IWriteTransaction
    {
        private bool _done;

        public void Put(TreeId tree, ReadOnlySpan<byte> key, ReadOnlySpan<byte> value)
        {
            var insert = system._statements[tree.Value].Insert;
            insert.BindBlob(1, key);
            insert.BindBlob(2, value);
            insert.Execute();
        }

        public bool Delete(TreeId tree, ReadOnlySpan<byte> key)
        {
            var delete = system._statements[tree.Value].Delete;
            delete.BindBlob(1, key);
            delete.Step();
            var changed = delete.Changes;
            delete.Reset();
            return changed > 0;
        }

        /// <summary>SQLite has no batch delete either; sorted input at least walks the B-tree in order.</summary>
        public int DeleteSorted(TreeId tree, FixedSizeRecords sortedKeys)
        {
            ArgumentNullException.ThrowIfNull(sortedKeys);
            var deleted = 0;
            for (var i = 0; i < sortedKeys.Count; i++)
            {
                if (Delete(tree, sortedKeys[i]))
                {
                    deleted++;
                }
            }

            return deleted;
        }

        public void Commit()
        {
            system._commit.Execute();
            _done = true;
        }

        public void Dispose()
        {
            if (!_done)
            {
                system._rollback.Execute();
                _done = true;
            }
        }
    }

    /// <summary>
    /// A connection of its own per reader. BEGIN takes no snapshot in SQLite; the first statement
    /// that reads does, so BeginRead runs one that reads the schema.
    /// </summary>
    private sealed class ReadSession : IReadSession
    {
        private readonly SqliteStorageSystem _system;
        private readonly SqliteConnection _connection;
        private readonly SqliteStatement _begin;
        private readonly SqliteStatement _takeSnapshot;
        private readonly SqliteStatement _end;
        private readonly List<SqliteStatement?> _selects = [];

        public ReadSession(SqliteStorageSystem system)
        {
            _system = system;
            _connection = OpenConnection(system._path);
            _begin = new SqliteStatement(_connection, "BEGIN");
            _takeSnapshot = new SqliteStatement(_connection, "SELECT 1 FROM sqlite_schema LIMIT 1");
            _end = new SqliteStatement(_connection, "COMMIT");
        }

        public void BeginRead()
        {
            _begin.Execute();
            _takeSnapshot.Execute();
        }

        public void EndRead() => _end.Execute();

        public int Read(TreeId tree, ReadOnlySpan<byte> key, Span<byte> destination)
        {
            var select = Select(tree);
            select.BindBlob(1, key);
            var length = -1;
            if (select.Step())
            {
                var value = select.ColumnBlob(0);
                value.CopyTo(destination);
                length = value.Length;
            }

            select.Reset();
            return length;
        }

        public void Dispose()
        {
            foreach (var select in _selects)
            {
                select?.Dispose();
            }

            _begin.Dispose();
            _takeSnapshot.Dispose();
            _end.Dispose();
            _connection.Dispose();
        }

        private SqliteStatement Select(TreeId tree)
        {
            while (_selects.Count <= tree.Value)
            {
                _selects.Add(null);
            }

            return _selects[tree.Value] ??= new SqliteStatement(_connection, $"SELECT v FROM \"{_system._tables[tree.Value]}\" WHERE k = ?1");
        }
    }
}
