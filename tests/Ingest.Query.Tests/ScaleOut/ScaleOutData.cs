using System.Globalization;
using System.Text.Json;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// The simulation's orders and the value pools its queries draw from: keywords in several casings (grouped and sorted
/// folded), ties on numbers, a multi-valued keyword, missing, null and wrong-typed values, dates over two years.
/// </summary>
internal static class ScaleOutData
{
    public static readonly string[] Statuses = ["new", "New", "shipped", "Shipped", "SHIPPED", "cancelled", "held"];

    public static readonly string[] Customers = ["ada", "Ada", "grace", "linus", "Linus", "barbara", "ken", "dennis", "edsger", "margaret", "alan", "Alan"];

    public static readonly string[] Tags = ["vip", "VIP", "urgent", "gift", "bulk", "late"];

    public static readonly string[] Words = ["late", "delivery", "on", "time", "broken", "box", "gift", "wrap"];

    public static readonly DateTime Start = new(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);

    public static List<(string Id, string Json)> Documents(Random random, int count)
    {
        var documents = new List<(string, string)>(count);
        for (var i = 0; i < count; i++)
        {
            documents.Add(("orders/" + i.ToString(CultureInfo.InvariantCulture), Document(random)));
        }

        return documents;
    }

    public static string DateText(DateTime instant) => instant.ToString("yyyy-MM-dd'T'HH:mm:ss'Z'", CultureInfo.InvariantCulture);

    public static DateTime RandomInstant(Random random) => Start.AddMinutes(random.Next(2 * 365 * 24 * 60));

    private static string Document(Random random)
    {
        var properties = new List<string>();
        switch (random.Next(20))
        {
            case 0: break;
            case 1: properties.Add("\"Status\":7"); break; // wrong type: not in the keyword index
            default: properties.Add("\"Status\":" + Str(Pick(random, Statuses))); break;
        }

        if (random.Next(10) != 0)
        {
            properties.Add("\"Customer\":" + Str(Pick(random, Customers)));
        }

        if (random.Next(4) != 0)
        {
            var tags = new List<string>();
            for (var n = random.Next(4); n > 0; n--)
            {
                tags.Add(Str(Pick(random, Tags)));
            }

            properties.Add("\"Tags\":[" + string.Join(",", tags) + "]");
        }

        switch (random.Next(20))
        {
            case 0: break;
            case 1: properties.Add("\"Total\":null"); break;
            case 2: properties.Add("\"Total\":\"n/a\""); break;
            default: properties.Add("\"Total\":" + (random.Next(-20, 800) / 4.0).ToString("R", CultureInfo.InvariantCulture)); break; // quarters: many ties
        }

        if (random.Next(10) != 0)
        {
            properties.Add("\"Qty\":" + random.Next(1, 10).ToString(CultureInfo.InvariantCulture));
        }

        if (random.Next(10) != 0)
        {
            properties.Add("\"OrderedAt\":\"" + DateText(RandomInstant(random)) + "\"");
        }

        if (random.Next(10) < 7)
        {
            properties.Add("\"Paid\":" + (random.Next(2) == 0 ? "true" : "false"));
        }

        if (random.Next(2) == 0)
        {
            var words = new List<string>();
            for (var n = random.Next(1, 4); n > 0; n--)
            {
                words.Add(Pick(random, Words));
            }

            properties.Add("\"Notes\":" + Str(string.Join(" ", words)));
        }

        return "{" + string.Join(",", properties) + "}";
    }

    private static string Str(string value) => JsonSerializer.Serialize(value);

    public static T Pick<T>(Random random, IReadOnlyList<T> items) => items[random.Next(items.Count)];
}
