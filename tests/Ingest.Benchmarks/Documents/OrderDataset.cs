using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Ingest.Benchmarks.Documents;

/// <summary>
/// Generated orders, realistic ~1 KiB JSON with a nested address and 4-8 order lines, the same
/// bytes for every system. Ids are mixed-case ASCII ("Orders/0000123-A") and the lookups use
/// random casings of them, which both the Ingest store and SQLite's NOCASE collation accept.
/// </summary>
internal sealed class OrderDataset
{
    public const string Collection = "Orders";

    private static readonly string[] Products = ["Chai", "Chang", "Aniseed Syrup", "Chef Anton's Cajun Seasoning", "Grandma's Boysenberry Spread", "Uncle Bob's Organic Dried Pears", "Northwoods Cranberry Sauce", "Mishi Kobe Niku", "Ikura", "Queso Cabrales", "Queso Manchego La Pastora", "Konbu", "Tofu", "Genen Shouyu", "Pavlova", "Alice Mutton"];
    private static readonly string[] Cities = ["Berlin", "México D.F.", "London", "Luleå", "Mannheim", "Strasbourg", "Madrid", "Marseille", "Tsawassen", "Buenos Aires", "Bern", "São Paulo"];
    private static readonly string[] Statuses = ["pending", "paid", "shipped", "delivered", "cancelled"];

    private OrderDataset(string[] ids, byte[][] bodies, string[] lookups)
    {
        Ids = ids;
        Bodies = bodies;
        Lookups = lookups;
        TotalBytes = bodies.Sum(b => (long)b.Length);
    }

    public string[] Ids { get; }

    public byte[][] Bodies { get; }

    /// <summary>Random existing ids in random casings, for the get workloads.</summary>
    public string[] Lookups { get; }

    public long TotalBytes { get; }

    public int Count => Ids.Length;

    /// <summary>Other generated documents (the lifecycle benchmark's log events) in the same shape, for the same systems.</summary>
    public static OrderDataset FromDocuments(string[] ids, byte[][] bodies, string[] lookups) => new(ids, bodies, lookups);

    public static OrderDataset Generate(int count, int lookups, int seed)
    {
        var rnd = new Random(seed);
        var ids = new string[count];
        var bodies = new byte[count][];
        Fill(rnd, 0, ids, bodies);
        var lookupIds = new string[lookups];
        for (var i = 0; i < lookups; i++)
        {
            lookupIds[i] = RandomCasing(ids[rnd.Next(count)], rnd);
        }

        return new OrderDataset(ids, bodies, lookupIds);
    }

    /// <summary>
    /// The orders <see cref="Generate"/> makes (without lookups), <paramref name="chunk"/> at a time, so a run over
    /// more orders than fit in memory streams them: the same seed gives the same bytes in the same order.
    /// </summary>
    public static IEnumerable<OrderDataset> Stream(int count, int seed, int chunk)
    {
        var rnd = new Random(seed);
        for (var first = 0; first < count; first += chunk)
        {
            var size = Math.Min(chunk, count - first);
            var ids = new string[size];
            var bodies = new byte[size][];
            Fill(rnd, first, ids, bodies);
            yield return new OrderDataset(ids, bodies, []);
        }
    }

    private static void Fill(Random rnd, int first, string[] ids, byte[][] bodies)
    {
        var buffer = new MemoryStream(2048);
        var start = new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        for (var j = 0; j < ids.Length; j++)
        {
            // Shuffled numbering, so ids do not arrive in key order.
            var i = first + j;
            var n = (int)(((long)i * 7_368_787) % 100_000_007);
            ids[j] = string.Create(CultureInfo.InvariantCulture, $"Orders/{n:D9}-{(char)('A' + (i % 26))}");
            buffer.SetLength(0);
            using (var json = new Utf8JsonWriter(buffer))
            {
                WriteOrder(json, ids[j], rnd, start);
            }

            bodies[j] = buffer.ToArray();
        }
    }

    private static void WriteOrder(Utf8JsonWriter json, string id, Random rnd, DateTime start)
    {
        var ordered = start.AddMinutes(rnd.Next(0, 60 * 24 * 365));
        json.WriteStartObject();
        json.WriteString("Id", id);
        json.WriteString("Company", string.Create(CultureInfo.InvariantCulture, $"companies/{rnd.Next(1, 92)}-A"));
        json.WriteString("Employee", string.Create(CultureInfo.InvariantCulture, $"employees/{rnd.Next(1, 10)}-A"));
        json.WriteString("OrderedAt", ordered);
        json.WriteString("RequireAt", ordered.AddDays(14));
        json.WriteString("ShippedAt", ordered.AddDays(rnd.Next(1, 10)));
        json.WriteString("ShipVia", string.Create(CultureInfo.InvariantCulture, $"shippers/{rnd.Next(1, 4)}-A"));
        json.WriteNumber("Freight", Math.Round(rnd.NextDouble() * 200, 2));
        json.WriteString("Status", Statuses[rnd.Next(Statuses.Length)]);
        json.WriteStartObject("ShipTo");
        json.WriteString("Line1", string.Create(CultureInfo.InvariantCulture, $"{rnd.Next(1, 999)} Obere Str."));
        json.WriteString("Line2", (string?)null);
        json.WriteString("City", Cities[rnd.Next(Cities.Length)]);
        json.WriteNull("Region");
        json.WriteString("PostalCode", rnd.Next(10000, 99999).ToString(CultureInfo.InvariantCulture));
        json.WriteString("Country", "Germany");
        json.WriteStartObject("Location");
        json.WriteNumber("Latitude", Math.Round((rnd.NextDouble() * 180) - 90, 6));
        json.WriteNumber("Longitude", Math.Round((rnd.NextDouble() * 360) - 180, 6));
        json.WriteEndObject();
        json.WriteEndObject();
        json.WriteStartArray("Lines");
        var lines = rnd.Next(4, 9);
        decimal total = 0;
        for (var l = 0; l < lines; l++)
        {
            var product = rnd.Next(Products.Length);
            var price = Math.Round((decimal)(rnd.NextDouble() * 100), 2);
            var quantity = rnd.Next(1, 50);
            var discount = rnd.Next(4) == 0 ? 0.15m : 0m;
            total += price * quantity * (1 - discount);
            json.WriteStartObject();
            json.WriteString("Product", string.Create(CultureInfo.InvariantCulture, $"products/{product + 1}-A"));
            json.WriteString("ProductName", Products[product]);
            json.WriteNumber("PricePerUnit", price);
            json.WriteNumber("Quantity", quantity);
            json.WriteNumber("Discount", discount);
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteNumber("Total", Math.Round(total, 2));
        json.WriteEndObject();
    }

    private static string RandomCasing(string id, Random rnd)
    {
        var builder = new StringBuilder(id);
        for (var i = 0; i < builder.Length; i++)
        {
            if (char.IsAsciiLetter(builder[i]) && rnd.Next(2) == 0)
            {
                builder[i] = char.IsAsciiLetterUpper(builder[i]) ? char.ToLowerInvariant(builder[i]) : char.ToUpperInvariant(builder[i]);
            }
        }

        return builder.ToString();
    }
}
