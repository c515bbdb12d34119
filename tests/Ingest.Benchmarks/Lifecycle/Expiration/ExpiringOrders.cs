using System.Globalization;
using System.Text;

namespace Ingest.Benchmarks.Lifecycle.Expiration;

/// <summary>
/// Small orders for the expiration cells: every even one carries <c>@metadata.@expires</c> in the past (due at once),
/// the odd ones never expire. Company (keyword) and Total (number) feed the two indexes.
/// </summary>
internal sealed class ExpiringOrders
{
    public const string Collection = "Orders";

    /// <summary>The expiry of the due half, as SQLite stores it too (UTC ticks).</summary>
    public static readonly DateTime DueAt = new(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    private ExpiringOrders(string[] ids, byte[][] bodies, bool[] due)
    {
        Ids = ids;
        Bodies = bodies;
        Due = due;
    }

    public string[] Ids { get; }

    public byte[][] Bodies { get; }

    public bool[] Due { get; }

    public int Count => Ids.Length;

    public int DueCount => (Count + 1) / 2;

    /// <param name="prefix">Keeps ids of different sets apart when two load one store.</param>
    /// <param name="dueEveryOther">False: no document expires (the documents ingested during expiration).</param>
    public static ExpiringOrders Generate(int count, int seed, string prefix, bool dueEveryOther = true)
    {
        var random = new Random(seed);
        var ids = new string[count];
        var bodies = new byte[count][];
        var due = new bool[count];
        for (var i = 0; i < count; i++)
        {
            ids[i] = $"{prefix}/{i}";
            due[i] = dueEveryOther && i % 2 == 0;
            var total = (random.Next(100, 1_000_000) / 100.0).ToString("0.00", CultureInfo.InvariantCulture);
            var expires = due[i] ? $",\"@metadata\":{{\"@expires\":\"{DueAt:yyyy-MM-ddTHH:mm:ssZ}\"}}" : string.Empty;
            bodies[i] = Encoding.UTF8.GetBytes(
                $"{{\"Company\":\"companies/{random.Next(1, 500)}\",\"Status\":\"new\",\"Total\":{total},\"OrderedAt\":\"2026-0{1 + (i % 9)}-1{i % 10}T10:00:00Z\"{expires}}}");
        }

        return new ExpiringOrders(ids, bodies, due);
    }
}
