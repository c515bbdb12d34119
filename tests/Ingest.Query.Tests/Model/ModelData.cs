using System.Globalization;
using System.Text;
using System.Text.Json;

namespace Ingest.Query.Tests.Model;

/// <summary>
/// Random documents and the value pools they and the queries draw from, so that filters hit: keywords in several casings
/// (Unicode ones whose lower case differs in byte length), numbers with repeats, negatives and -0, dates in every form the
/// index takes, nulls, missing fields, empty and mixed arrays, values of the wrong type.
/// </summary>
internal static class ModelData
{
    public static readonly string[] Keywords =
    [
        "open", "Open", "OPEN", "shipped", "Shipped", "cancelled", "été", "ÉTÉ", "Straße", "STRASSE", "straße", "İstanbul",
        "istanbul", "Ωmega", "ωmega", "ǅemal", "😀 party", "a", "A", "ab", "abc", "", "z", "Z",
    ];

    public static readonly string[] Codes = ["X1", "x1", "Y2", "y2", "Z", "É1", "é1"];

    public static readonly string[] Words = ["late", "Late", "delivery", "DELIVERY", "on", "time", "été", "ÉTÉ", "naïve", "don't", "42", "x"];

    public static readonly double[] Numbers = [0, -0.0, 1, 2, 2.5, -1, -7.25, 10, 100, 1e6, 3.14159, 1e-3, 9007199254740993];

    /// <summary>Dates between 2024 and 2026 in the forms the index takes; the ticks follow from the text.</summary>
    public static string DateText(Random random, out long ticks)
    {
        var start = new DateTime(2024, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        var instant = start.AddMinutes(random.Next(3 * 365 * 24 * 60 / 17) * 17);
        switch (random.Next(5))
        {
            case 0:
                instant = instant.Date;
                ticks = instant.Ticks;
                return "\"" + instant.ToString("yyyy-MM-dd", CultureInfo.InvariantCulture) + "\"";
            case 1:
                ticks = instant.Ticks;
                return "\"" + instant.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture) + "+00:00\"";
            case 2:
            {
                var local = instant.AddHours(2);
                ticks = instant.Ticks;
                return "\"" + local.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture) + "+02:00\"";
            }

            case 3:
            {
                var ms = (long)(instant - DateTime.UnixEpoch).TotalMilliseconds + random.Next(1000);
                ticks = DateTime.UnixEpoch.Ticks + (ms * TimeSpan.TicksPerMillisecond);
                return ms.ToString(CultureInfo.InvariantCulture);
            }

            default:
                ticks = instant.Ticks;
                return "\"" + instant.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture) + "Z\"";
        }
    }

    public static List<ModelDocument> Documents(Random random, int count)
    {
        var documents = new List<ModelDocument>(count);
        for (var i = 0; i < count; i++)
        {
            var id = (random.Next(10) == 0 ? "Orders/" : "orders/") + i.ToString(CultureInfo.InvariantCulture);
            var json = Document(random);
            documents.Add(new ModelDocument(id, i, json, JsonDocument.Parse(json).RootElement.Clone()));
        }

        return documents;
    }

    /// <summary>
    /// Rewrites about a sixth of the documents and deletes about a twentieth: what the index holds after re-puts and
    /// deletes. A rewritten document keeps its place in entry order (ties are broken by the order documents were first indexed).
    /// </summary>
    public static (List<ModelDocument> Current, List<ModelDocument> Rewritten, List<string> Deleted) Change(Random random, List<ModelDocument> documents)
    {
        var current = new List<ModelDocument>();
        var rewritten = new List<ModelDocument>();
        var deleted = new List<string>();
        foreach (var document in documents)
        {
            switch (random.Next(20))
            {
                case 0:
                    deleted.Add(document.Id);
                    break;
                case 1 or 2 or 3:
                {
                    var json = Document(random);
                    var changed = document with { Json = json, Root = JsonDocument.Parse(json).RootElement.Clone(), EtagOrder = documents.Count + rewritten.Count };
                    rewritten.Add(changed);
                    current.Add(changed);
                    break;
                }

                default:
                    current.Add(document);
                    break;
            }
        }

        return (current, rewritten, deleted);
    }

    private static string Document(Random random)
    {
        var properties = new List<string>();
        Maybe(random, properties, "Status", () => Scalar(random, () => Str(Pick(random, Keywords))));
        Maybe(random, properties, "Code", () => Scalar(random, () => Str(Pick(random, Codes))));
        Maybe(random, properties, "Customer", () => random.Next(6) switch
        {
            0 => "null",
            1 => "\"not an object\"",
            2 => "{}",
            _ => "{\"Name\":" + Scalar(random, () => Str(Pick(random, Keywords))) + "}",
        });
        Maybe(random, properties, "Tags", () => random.Next(6) switch
        {
            0 => "null",
            1 => "\"single\"",
            _ => Array(random, 0, 4, () => random.Next(8) switch
            {
                0 => "null",
                1 => "7",
                _ => Str(Pick(random, Keywords)),
            }),
        });
        Maybe(random, properties, "Total", () => random.Next(8) switch
        {
            0 => Array(random, 1, 3, () => Num(Pick(random, Numbers))),
            _ => Scalar(random, () => Num(random.Next(3) == 0 ? Pick(random, Numbers) : Math.Round((random.NextDouble() * 400) - 100, 2))),
        });
        Maybe(random, properties, "Lines", () => random.Next(6) == 0
            ? "null"
            : Array(random, 0, 4, () => random.Next(6) switch
            {
                0 => "{}",
                1 => "{\"Qty\":null,\"Sku\":\"S\"}",
                2 => "5",
                _ => "{\"Sku\":" + Str(Pick(random, Codes)) + ",\"Qty\":" + Scalar(random, () => Num(random.Next(1, 6))) + "}",
            }));
        Maybe(random, properties, "OrderedAt", () => random.Next(10) switch
        {
            0 => "\"soon\"",
            1 => "null",
            2 => "true",
            _ => DateText(random, out _),
        });
        Maybe(random, properties, "Paid", () => random.Next(8) switch
        {
            0 => "null",
            1 => "\"yes\"",
            2 => "[true,false]",
            _ => random.Next(2) == 0 ? "true" : "false",
        });
        Maybe(random, properties, "Notes", () => Scalar(random, () =>
        {
            var words = new StringBuilder();
            for (var w = random.Next(0, 5); w > 0; w--)
            {
                words.Append(Pick(random, Words)).Append(random.Next(3) == 0 ? ", " : " ");
            }

            return Str(words.ToString());
        }));
        Shuffle(random, properties);
        return "{" + string.Join(",", properties) + "}";
    }

    /// <summary>Usually the value; sometimes null, a wrong type, or an array holding values.</summary>
    private static string Scalar(Random random, Func<string> value) => random.Next(12) switch
    {
        0 => "null",
        1 => "{\"nested\":1}",
        2 => random.Next(2) == 0 ? "12" : "\"12\"",
        _ => value(),
    };

    private static void Maybe(Random random, List<string> properties, string name, Func<string> value)
    {
        if (random.Next(6) != 0)
        {
            properties.Add(Str(name) + ":" + value());
        }
    }

    private static string Array(Random random, int min, int max, Func<string> item)
    {
        var items = new List<string>();
        for (var n = random.Next(min, max + 1); n > 0; n--)
        {
            items.Add(item());
        }

        return "[" + string.Join(",", items) + "]";
    }

    public static string Str(string value) => JsonSerializer.Serialize(value);

    public static string Num(double value) => value == 9007199254740993 ? "9007199254740993" : value.ToString("R", CultureInfo.InvariantCulture) is var s && s == "-0" ? "-0.0" : value.ToString("R", CultureInfo.InvariantCulture);

    public static T Pick<T>(Random random, IReadOnlyList<T> items) => items[random.Next(items.Count)];

    private static void Shuffle<T>(Random random, List<T> items)
    {
        for (var i = items.Count - 1; i > 0; i--)
        {
            var j = random.Next(i + 1);
            (items[i], items[j]) = (items[j], items[i]);
        }
    }
}
