using Microsoft.Data.Sqlite;
using SQLitePCL;

namespace Ingest.Benchmarks.Baselines.Sqlite;

/// <summary>
/// A prepared statement driven through SQLitePCLRaw, under Microsoft.Data.Sqlite's connection:
/// bind, step and reset with spans, so the baseline measures SQLite rather than ADO.NET objects.
/// </summary>
internal sealed class SqliteStatement : IDisposable
{
    private readonly sqlite3 _database;
    private readonly sqlite3_stmt _statement;

    public SqliteStatement(SqliteConnection connection, string sql)
    {
        ArgumentNullException.ThrowIfNull(connection);
        _database = connection.Handle ?? throw new InvalidOperationException("The connection is not open.");
        Check(raw.sqlite3_prepare_v2(_database, sql, out _statement));
    }

    public void BindBlob(int parameter, ReadOnlySpan<byte> value) => Check(raw.sqlite3_bind_blob(_statement, parameter, value));

    public void BindText(int parameter, string value) => Check(raw.sqlite3_bind_text(_statement, parameter, value));

    /// <summary>Binds UTF-8 bytes as TEXT, so the column's collation applies.</summary>
    public void BindText(int parameter, ReadOnlySpan<byte> utf8) => Check(raw.sqlite3_bind_text(_statement, parameter, utf8));

    public void BindInt64(int parameter, long value) => Check(raw.sqlite3_bind_int64(_statement, parameter, value));

    public void BindDouble(int parameter, double value) => Check(raw.sqlite3_bind_double(_statement, parameter, value));

    /// <summary>Steps once; true when a row is available.</summary>
    public bool Step()
    {
        var result = raw.sqlite3_step(_statement);
        if (result == raw.SQLITE_ROW)
        {
            return true;
        }

        if (result != raw.SQLITE_DONE)
        {
            // Reset returns the step's error code and leaves the statement reusable.
            raw.sqlite3_reset(_statement);
            SqliteException.ThrowExceptionForRC(result, _database);
        }

        return false;
    }

    public ReadOnlySpan<byte> ColumnBlob(int column) => raw.sqlite3_column_blob(_statement, column);

    public long ColumnInt64(int column) => raw.sqlite3_column_int64(_statement, column);

    /// <summary>Rows changed by the last completed INSERT, UPDATE or DELETE on this connection.</summary>
    public int Changes => raw.sqlite3_changes(_database);

    public void Reset() => raw.sqlite3_reset(_statement);

    /// <summary>Steps a statement that returns no rows, then resets it.</summary>
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
