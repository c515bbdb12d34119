using System.Globalization;
using System.Text;
using System.Text.Json;
using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Lifecycle.Compression;

/// <summary>
/// Log-like events, many similar small documents (about 400 bytes): a timestamp that moves forward, a level
/// (mostly INFO), one of 8 services on one of 40 hosts, a message from 16 templates with 2-3 variables, an HTTP
/// method, path and status, a duration, and a random 128-bit trace id and 64-bit span id (hex, as W3C trace
/// context has them: about 24 bytes of each event no compressor can shrink).
/// </summary>
internal static class LogDataset
{
    private static readonly string[] Services = ["checkout-api", "payments", "inventory", "shipping-worker", "auth", "search", "notifications", "gateway"];
    private static readonly string[] Regions = ["eu-west-1", "eu-central-1", "us-east-1"];
    private static readonly string[] Methods = ["GET", "GET", "GET", "POST", "PUT", "DELETE"];
    private static readonly string[] Templates =
    [
        "Order {0} paid in {1} ms by customer {2}",
        "Payment {0} authorized for {1} EUR (card ending {2})",
        "Cache miss for product {0}; loaded from the database in {1} ms",
        "User {0} signed in from {2} after {1} failed attempts",
        "Shipment {0} handed to carrier {2}, ETA {1} days",
        "Retrying request {0} to {2} (attempt {1})",
        "Stock for SKU {0} fell to {1} units in warehouse {2}",
        "Slow query on orders took {1} ms (plan {0}, rows {2})",
        "Published event {0} to topic {2} in {1} ms",
        "Token {0} expired {1} seconds ago for client {2}",
        "Rate limit reached for API key {0}: {1} requests in window {2}",
        "Search for '{2}' returned {1} hits in {0} ms",
        "Consumer lag on partition {0} is {1} messages (group {2})",
        "Email {0} queued for {2}, {1} recipients",
        "Health check of {2} failed: status {1} after {0} ms",
        "Invoice {0} generated with {1} lines for tenant {2}",
    ];

    private static readonly string[] Words = ["carrier-dhl", "carrier-ups", "10.0.3.17", "10.0.7.201", "orders.v1", "payments.v2", "mobile-app", "web", "wh-berlin", "wh-lyon", "tenant-042", "tenant-117", "grp-indexer", "redis-main", "postgres-ro", "shoes"];

    public static OrderDataset Generate(int count, int lookups, int seed)
    {
        var rnd = new Random(seed);
        var ids = new string[count];
        var bodies = new byte[count][];
        var buffer = new MemoryStream(1024);
        var time = new DateTime(2026, 11, 27, 8, 0, 0, DateTimeKind.Utc);
        Span<byte> random = stackalloc byte[24];
        for (var i = 0; i < count; i++)
        {
            ids[i] = string.Create(CultureInfo.InvariantCulture, $"Logs/{i:D10}");
            time = time.AddTicks(rnd.Next(1, 20_000_000));
            rnd.NextBytes(random);
            var service = rnd.Next(Services.Length);
            var roll = rnd.Next(100);
            var level = roll < 2 ? "ERROR" : roll < 8 ? "WARN" : roll < 20 ? "DEBUG" : "INFO";
            var template = Templates[rnd.Next(Templates.Length)];
            var message = string.Format(CultureInfo.InvariantCulture, template, rnd.Next(1_000_000, 9_999_999), rnd.Next(1, 2000), Words[rnd.Next(Words.Length)]);
            var method = Methods[rnd.Next(Methods.Length)];
            var status = level == "ERROR" ? 500 : level == "WARN" ? 429 : rnd.Next(10) == 0 ? 201 : 200;
            buffer.SetLength(0);
            using (var json = new Utf8JsonWriter(buffer))
            {
                json.WriteStartObject();
                json.WriteString("timestamp", time);
                json.WriteString("level", level);
                json.WriteString("service", Services[service]);
                json.WriteString("host", string.Create(CultureInfo.InvariantCulture, $"{Services[service]}-{rnd.Next(5)}.{Regions[service % Regions.Length]}.internal"));
                json.WriteString("region", Regions[service % Regions.Length]);
                json.WriteString("message", message);
                json.WriteString("traceId", Convert.ToHexStringLower(random[..16]));
                json.WriteString("spanId", Convert.ToHexStringLower(random.Slice(16, 8)));
                json.WriteStartObject("http");
                json.WriteString("method", method);
                json.WriteString("path", string.Create(CultureInfo.InvariantCulture, $"/api/v2/{Services[service]}/{rnd.Next(1, 100_000)}"));
                json.WriteNumber("status", status);
                json.WriteEndObject();
                json.WriteNumber("durationMs", Math.Round(rnd.NextDouble() * 400, 2));
                json.WriteString("version", "2026.11.3");
                json.WriteEndObject();
            }

            bodies[i] = buffer.ToArray();
        }

        var lookupIds = new string[lookups];
        for (var i = 0; i < lookups; i++)
        {
            lookupIds[i] = ids[rnd.Next(count)];
        }

        return OrderDataset.FromDocuments(ids, bodies, lookupIds);
    }

    /// <summary>One event as text, for the log.</summary>
    public static string Sample(OrderDataset data) => Encoding.UTF8.GetString(data.Bodies[0]);
}
