using System.Globalization;
using System.Text.Json;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// Generated customer profiles, about 1 KiB of JSON each: ids, names, a nested address with
/// coordinates, arrays of tags and recent orders, numbers, booleans and timestamps. The same seed
/// gives the same documents in the same order, so every system reads identical bytes.
/// </summary>
internal sealed class ProfileDocuments
{
    public const string Collection = "Customers";

    private static readonly string[] FirstNames = ["Ana", "Björn", "Chloé", "Dmitri", "Elif", "Fatima", "Guo", "Hiroshi", "Ines", "João", "Kwame", "Léa", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Søren", "Thandiwe"];
    private static readonly string[] LastNames = ["Andersson", "Barros", "Cohen", "Dubois", "Eriksen", "Fernández", "Garcia", "Hansen", "Ivanova", "Jensen", "Kowalski", "López", "Müller", "Nakamura", "O'Brien", "Petrov", "Rossi", "Schmidt", "Tanaka", "Weiß"];
    private static readonly string[] Cities = ["Berlin", "México D.F.", "London", "Luleå", "Mannheim", "Strasbourg", "Madrid", "Marseille", "Tsawassen", "Buenos Aires", "Bern", "São Paulo", "Kraków", "Osaka"];
    private static readonly string[] Countries = ["DE", "MX", "GB", "SE", "FR", "ES", "CA", "AR", "CH", "BR", "PL", "JP"];
    private static readonly string[] Streets = ["Obere Str.", "Avda. de la Constitución", "Mataderos", "Berguvsvägen", "Forsterstr.", "Place Kléber", "C/ Araquil", "Rue des Bouchers", "Hauptstr.", "Rua Orós"];
    private static readonly string[] Tags = ["vip", "newsletter", "b2b", "wholesale", "returning", "churn-risk", "beta", "eu", "latam", "apac", "gift-card", "loyalty-gold", "loyalty-silver", "mobile", "support-priority"];
    private static readonly string[] Languages = ["en", "de", "fr", "es", "pt", "sv", "ja", "pl"];
    private static readonly string[] Currencies = ["EUR", "USD", "GBP", "SEK", "BRL", "JPY", "PLN", "CHF"];
    private static readonly string[] Statuses = ["pending", "paid", "shipped", "delivered", "returned"];
    private const string NoteText = "Prefers delivery before noon; call ahead at the gate. Asked about bulk discounts for the spring catalogue and wants invoices by email. ";

    private readonly Random _random;
    private readonly MemoryStream _buffer = new(2048);
    private readonly DateTime _start = new(2023, 1, 1, 0, 0, 0, DateTimeKind.Utc);
    private int _next;

    public ProfileDocuments(int seed) => _random = new Random(seed);

    /// <summary>The id of the document with the given index: "customers/0000042-C".</summary>
    public static string IdOf(int index) =>
        string.Create(CultureInfo.InvariantCulture, $"customers/{index:D7}-{(char)('A' + (index % 26))}");

    /// <summary>The next document in the sequence.</summary>
    public (string Id, byte[] Body) Next()
    {
        var index = _next++;
        var id = IdOf(index);
        _buffer.SetLength(0);
        using (var json = new Utf8JsonWriter(_buffer))
        {
            Write(json, id, index);
        }

        return (id, _buffer.ToArray());
    }

    private void Write(Utf8JsonWriter json, string id, int index)
    {
        var rnd = _random;
        var first = FirstNames[rnd.Next(FirstNames.Length)];
        var last = LastNames[rnd.Next(LastNames.Length)];
        var created = _start.AddSeconds(rnd.Next(0, 60 * 60 * 24 * 365));
        var city = rnd.Next(Cities.Length);
        json.WriteStartObject();
        json.WriteString("id", id);
        json.WriteNumber("customerNumber", 1_000_000 + index);
        json.WriteStartObject("name");
        json.WriteString("first", first);
        json.WriteString("last", last);
        json.WriteString("display", $"{first} {last}");
        json.WriteEndObject();
        json.WriteString("email", string.Create(CultureInfo.InvariantCulture, $"{first.ToLowerInvariant()}.{index}@example.com"));
        json.WriteString("phone", string.Create(CultureInfo.InvariantCulture, $"+{rnd.Next(1, 99)} {rnd.Next(100, 999)} {rnd.Next(1_000_000, 9_999_999)}"));
        json.WriteBoolean("active", rnd.Next(10) != 0);
        json.WriteString("createdAt", created);
        json.WriteString("updatedAt", created.AddMinutes(rnd.Next(0, 60 * 24 * 90)));
        json.WriteStartObject("address");
        json.WriteString("street", string.Create(CultureInfo.InvariantCulture, $"{rnd.Next(1, 999)} {Streets[rnd.Next(Streets.Length)]}"));
        json.WriteString("city", Cities[city]);
        json.WriteString("postalCode", rnd.Next(10_000, 99_999).ToString(CultureInfo.InvariantCulture));
        json.WriteString("country", Countries[city % Countries.Length]);
        json.WriteStartObject("geo");
        json.WriteNumber("lat", Math.Round((rnd.NextDouble() * 180) - 90, 6));
        json.WriteNumber("lon", Math.Round((rnd.NextDouble() * 360) - 180, 6));
        json.WriteEndObject();
        json.WriteEndObject();
        json.WriteStartArray("tags");
        var tags = rnd.Next(1, 6);
        for (var t = 0; t < tags; t++)
        {
            json.WriteStringValue(Tags[rnd.Next(Tags.Length)]);
        }

        json.WriteEndArray();
        json.WriteStartObject("preferences");
        json.WriteString("language", Languages[rnd.Next(Languages.Length)]);
        json.WriteString("currency", Currencies[rnd.Next(Currencies.Length)]);
        json.WriteStartObject("notifications");
        json.WriteBoolean("email", rnd.Next(2) == 0);
        json.WriteBoolean("sms", rnd.Next(4) == 0);
        json.WriteBoolean("push", rnd.Next(3) == 0);
        json.WriteEndObject();
        json.WriteEndObject();
        json.WriteStartObject("stats");
        json.WriteNumber("orders", rnd.Next(0, 400));
        json.WriteNumber("lifetimeValue", Math.Round((decimal)(rnd.NextDouble() * 25_000), 2));
        json.WriteNumber("score", Math.Round(rnd.NextDouble(), 4));
        json.WriteEndObject();
        json.WriteStartArray("recentOrders");
        var orders = rnd.Next(2, 5);
        for (var o = 0; o < orders; o++)
        {
            json.WriteStartObject();
            json.WriteString("orderId", string.Create(CultureInfo.InvariantCulture, $"orders/{rnd.Next(1, 99_999_999):D8}-A"));
            json.WriteNumber("total", Math.Round((decimal)(rnd.NextDouble() * 800), 2));
            json.WriteNumber("items", rnd.Next(1, 12));
            json.WriteString("status", Statuses[rnd.Next(Statuses.Length)]);
            json.WriteString("placedAt", created.AddDays(rnd.Next(0, 365)));
            json.WriteEndObject();
        }

        json.WriteEndArray();
        json.WriteString("notes", NoteText.AsSpan(0, rnd.Next(20, NoteText.Length)));
        json.WriteEndObject();
    }
}
