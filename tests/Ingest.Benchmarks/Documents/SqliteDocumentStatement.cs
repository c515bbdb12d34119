using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Ingest.Benchmarks.Documents;

/// <summary>A prepared statement driven through SQLitePCLRaw with text and integer parameters (the storage baseline's statement binds blobs only).</summary>
internal sealed class SqliteDocumentStatement : IDisposable
{
    private readonly sqlite3 _database;
    private readonly sqlite3_stmt _statement;

    public SqliteDocumentStatement(SqliteConnection connection, string sql)
    {
        ArgumentNullException.ThrowIfNull(connection);
        _database = connection.Handle ?? throw new InvalidOperationException("The connection is not open.");
        Check(raw.sqlite3_prepare_v2(_database, sql, out _statement));
    }

    /// <summary>Rows changed by the last completed INSERT, UPDATE or DELETE on this connection.</summary>
    public int Changes => raw.sqlite3_changes(_database);

    public void BindText(int parameter, string value) => Check(raw.sqlite3_bind_text(_statement, parameter, value));

    /// <summary>Binds UTF-8 bytes as TEXT, so the column's collation applies.</summary>
    public void BindText(int parameter, ReadOnlySpan<byte> utf8) => Check(raw.sqlite3_bind_text(_statement, parameter, utf8));

    public void BindInt64(int parameter, long value) => Check(raw.sqlite3_bind_int64(_statement, parameter, value));

    public bool Step()
    {
        var result = raw.sqlite3_step(_statement);
        if (result == raw.SQLITE_ROW)
        {
            return true;
        }

        if (result != raw.SQLITE_DONE)
        {
            raw.sqlite3_reset(_statement);
            SqliteException.ThrowExceptionForRC(result, _database);
        }

        return false;
    }

    public ReadOnlySpan<byte> ColumnBlob(int column) => raw.sqlite3_column_blob(_statement, column);

    public void Reset() => raw.sqlite3_reset(_statement);

    public void Execute()
    {
        Step();
        Reset();
    }

    public void Dispose() => _statement.Dispose();

    private void Check(int result)
    {
        if (result != raw.SQLITE_OK)
        {
            SqliteException.ThrowExceptionForRC(result, _database);
        }
    }
}
