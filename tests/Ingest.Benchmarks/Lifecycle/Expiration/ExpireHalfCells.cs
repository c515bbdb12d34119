using System.Diagnostics;
using System.Globalization;
using Ingest.Documents;
using Ingest.Query;
using Ingest.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Data.Sqlite;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Benchmarks.Lifecycle.Expiration;

/// <summary>The three ways of deleting the due half of the orders that <c>expire-half</c> compares.</summary>
internal static class ExpireHalfCells
{
    /// <summary>The expiration task's batches against the durable store; timed until both indexes processed the deletes.</summary>
    public static LifecycleRow ByTask(LifecycleContext context, ExpiringOrders orders)
    {
        var directory = context.NewDirectory("expire-task");
        try
        {
            using var stores = ExpirationStores.Open(directory, orders);
            var clock = Stopwatch.StartNew();
            var deleted = stores.ExpireAll();
            var deleting = clock.Elapsed;
            stores.WaitForIndexes();
            var elapsed = clock.Elapsed;
            Expect(orders.DueCount, deleted);
            return new LifecycleRow(ExpirationSection.ExpireHalf, ExpirationSection.Ingest, deleted / elapsed.TotalSeconds, null, "deletes/s",
                string.Create(CultureInfo.InvariantCulture, $"{deleted:N0} of {orders.Count:N0} by the task's batches of 10,000 (durable) in {deleting.TotalSeconds:N2} s, then {(elapsed - deleting).TotalSeconds:N2} s until 2 indexes caught up"));
        }
        finally
        {
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>
    /// One-by-one <c>DELETE /docs/{id}</c> from one client against a real server (durable store, the two indexes), for the
    /// first <paramref name="sample"/> due documents; the rate is extrapolated to the whole half.
    /// </summary>
    public static LifecycleRow ByHttp(LifecycleContext context, ExpiringOrders orders, int sample)
    {
        var directory = context.NewDirectory("expire-http");
        var app = IngestHost.Build(["--urls", "http://127.0.0.1:0", $"--Ingest:DataDirectory={directory}", "--Logging:LogLevel:Default=Warning", "--Ingest:Expiration:Interval=1.00:00:00"]);
        try
        {
            IngestHost.StartAsync(app).GetAwaiter().GetResult();
            var store = app.Services.GetRequiredService<DocumentStore>();
            var engine = app.Services.GetRequiredService<QueryEngine>();
            foreach (var index in ExpirationStores.Indexes)
            {
                engine.Indexes.PutAsync(index).GetAwaiter().GetResult();
            }

            // The same documents without their expiry: here the client decides what goes.
            var plain = ExpiringOrders.Generate(orders.Count, context.Seed, "orders", dueEveryOther: false);
            ExpirationStores.Load(store, plain);
            ExpirationStores.WaitForIndexes(engine, store.LastEtag);
            var address = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.First();
            using var client = new HttpClient { BaseAddress = new Uri(address) };
            var count = Math.Min(sample, orders.DueCount);
            var clock = Stopwatch.StartNew();
            var sent = 0;
            for (var i = 0; sent < count; i += 2)
            {
                using var response = client.DeleteAsync(new Uri("/docs/" + orders.Ids[i], UriKind.Relative)).GetAwaiter().GetResult();
                response.EnsureSuccessStatusCode();
                sent++;
            }

            ExpirationStores.WaitForIndexes(engine, store.LastEtag);
            var elapsed = clock.Elapsed;
            var note = count < orders.DueCount
                ? string.Create(CultureInfo.InvariantCulture, $"sampled: {count:N0} sequential DELETEs of the {orders.DueCount:N0} due, rate extrapolated (all would take ~{orders.DueCount / (count / elapsed.TotalSeconds):N0} s)")
                : string.Create(CultureInfo.InvariantCulture, $"{count:N0} sequential DELETEs over one connection, until 2 indexes caught up");
            return new LifecycleRow(ExpirationSection.ExpireHalf, ExpirationSection.HttpDeletes, count / elapsed.TotalSeconds, null, "deletes/s", note);
        }
        finally
        {
            app.StopAsync().GetAwaiter().GetResult();
            app.DisposeAsync().AsTask().GetAwaiter().GetResult();
            Directory.Delete(directory, recursive: true);
        }
    }

    /// <summary>
    /// SQLite (WAL, synchronous=FULL): the orders in a table with expression indexes on Company and Total and an index on
    /// the expiry, deleted by one <c>DELETE FROM orders WHERE expires &lt;= now</c>.
    /// </summary>
    public static LifecycleRow BySqlite(LifecycleContext context, ExpiringOrders orders)
    {
        var directory = context.NewDirectory("expire-sqlite");
        try
        {
            var builder = new SqliteConnectionStringBuilder { DataSource = Path.Combine(directory, "orders.db"), Mode = SqliteOpenMode.ReadWriteCreate, Pooling = false };
            using var connection = new SqliteConnection(builder.ToString());
            connection.Open();
            Exec(connection, "PRAGMA journal_mode=WAL");
            Exec(connection, "PRAGMA synchronous=FULL");
            Exec(connection, "PRAGMA cache_size=-262144");
            Exec(connection, "CREATE TABLE orders (id TEXT NOT NULL PRIMARY KEY COLLATE NOCASE, body TEXT NOT NULL, expires INTEGER)");
            Exec(connection, "CREATE INDEX orders_by_company ON orders(json_extract(body, '$.Company'))");
            Exec(connection, "CREATE INDEX orders_by_total ON orders(json_extract(body, '$.Total'))");
            Exec(connection, "CREATE INDEX orders_by_expiry ON orders(expires) WHERE expires IS NOT NULL");
            var due = ExpiringOrders.DueAt.Ticks;
            for (var from = 0; from < orders.Count; from += 10_000)
            {
                using var transaction = connection.BeginTransaction();
                using var insert = connection.CreateCommand();
                insert.CommandText = "INSERT INTO orders (id, body, expires) VALUES ($id, $body, $expires)";
                var id = insert.Parameters.Add("$id", SqliteType.Text);
                var body = insert.Parameters.Add("$body", SqliteType.Text);
                var expires = insert.Parameters.Add("$expires", SqliteType.Integer);
                for (var i = from; i < Math.Min(from + 10_000, orders.Count); i++)
                {
                    id.Value = orders.Ids[i];
                    body.Value = System.Text.Encoding.UTF8.GetString(orders.Bodies[i]);
                    expires.Value = orders.Due[i] ? due : DBNull.Value;
                    insert.ExecuteNonQuery();
                }

                transaction.Commit();
            }

            var clock = Stopwatch.StartNew();
            using var delete = connection.CreateCommand();
            delete.CommandText = "DELETE FROM orders WHERE expires <= $now";
            delete.Parameters.AddWithValue("$now", DateTime.UtcNow.Ticks);
            var deleted = delete.ExecuteNonQuery();
            var elapsed = clock.Elapsed;
            Expect(orders.DueCount, deleted);
            return new LifecycleRow(ExpirationSection.ExpireHalf, ExpirationSection.Sqlite, deleted / elapsed.TotalSeconds, null, "deletes/s",
                string.Create(CultureInfo.InvariantCulture, $"{deleted:N0} by one DELETE ... WHERE expires <= now (WAL, synchronous=FULL; indexes on Company, Total and expires; no tombstones)"));
        }
        finally
        {
            SqliteConnection.ClearAllPools();
            Directory.Delete(directory, recursive: true);
        }
    }

    private static void Expect(long expected, long deleted)
    {
        if (deleted != expected)
        {
            throw new InvalidOperationException($"deleted {deleted:N0} documents; {expected:N0} were due");
        }
    }

    private static void Exec(SqliteConnection connection, string sql)
    {
        using var command = connection.CreateCommand();
        command.CommandText = sql;
        command.ExecuteNonQuery();
    }
}
