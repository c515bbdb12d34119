using System.Globalization;
using System.Text;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Model;

/// <summary>The brute-force evaluator's value rules, written from the README's tables, not from the engine's code.</summary>
internal static class ModelValues
{
    private static readonly string[] DateFormats =
    [
        "yyyy-MM-dd", "yyyy-MM-ddTHH:mm:ssZ", "yyyy-MM-ddTHH:mm:ss.FFFFFFFZ", "yyyy-MM-ddTHH:mm:sszzz", "yyyy-MM-ddTHH:mm:ss.FFFFFFFzzz",
        "yyyy-MM-ddTHH:mm:ss", "yyyy-MM-ddTHH:mm:ss.FFFFFFF",
    ];

    /// <summary>Walks an index path (<c>Customer.Name</c>, <c>Tags[]</c>) over a document.</summary>
    public static ModelFieldValues Extract(JsonElement root, string path, IndexFieldDefinition field)
    {
        var values = new List<object>();
        var hasNull = false;
        var steps = Steps(path);
        Walk(root, 0);
        return new ModelFieldValues(values, hasNull);

        void Walk(JsonElement element, int step)
        {
            if (step == steps.Count)
            {
                if (element.ValueKind == JsonValueKind.Null)
                {
                    hasNull = true;
                }
                else
                {
                    Take(element, field, values);
                }

                return;
            }

            var name = steps[step];
            if (element.ValueKind == JsonValueKind.Null)
            {
                hasNull = true;
            }
            else if (name == null && element.ValueKind == JsonValueKind.Array)
            {
                foreach (var item in element.EnumerateArray())
                {
                    Walk(item, step + 1);
                }
            }
            else if (name != null && element.ValueKind == JsonValueKind.Object)
            {
                if (element.TryGetProperty(name, out var child))
                {
                    Walk(child, step + 1);
                }
                else
                {
                    hasNull = true;
                }
            }

            // Anything else is a wrong type: neither a value nor null.
        }
    }

    /// <summary>A path's steps: a property name, or null for <c>[]</c>.</summary>
    public static List<string?> Steps(string path)
    {
        var steps = new List<string?>();
        foreach (var (name, arrays) in FieldPathSyntax.Split(path))
        {
            steps.Add(name);
            for (var a = 0; a < arrays; a++)
            {
                steps.Add(null);
            }
        }

        return steps;
    }

    private static void Take(JsonElement element, IndexFieldDefinition field, List<object> values)
    {
        switch (field.Type)
        {
            case IndexFieldType.Keyword when element.ValueKind == JsonValueKind.String:
                values.Add(Keyword(element.GetString()!, field.ExactCase));
                break;
            case IndexFieldType.Text when element.ValueKind == JsonValueKind.String:
                values.AddRange(Words(element.GetString()!));
                break;
            case IndexFieldType.Number when element.ValueKind == JsonValueKind.Number:
                values.Add(element.GetDouble() + 0.0);
                break;
            case IndexFieldType.DateTime when element.ValueKind == JsonValueKind.String:
                if (TryParseDate(element.GetString()!, out var ticks))
                {
                    values.Add(ticks);
                }

                break;
            case IndexFieldType.DateTime when element.ValueKind == JsonValueKind.Number:
                if (element.TryGetInt64(out var ms))
                {
                    values.Add(DateTime.UnixEpoch.Ticks + (ms * TimeSpan.TicksPerMillisecond));
                }

                break;
            case IndexFieldType.Bool when element.ValueKind is JsonValueKind.True or JsonValueKind.False:
                values.Add(element.GetBoolean());
                break;
        }
    }

    /// <summary>Lower case by the invariant culture's simple mapping, one character at a time, as UTF-8 bytes.</summary>
    public static byte[] Keyword(string value, bool exactCase)
    {
        if (exactCase)
        {
            return Encoding.UTF8.GetBytes(value);
        }

        var folded = new StringBuilder();
        foreach (var rune in value.EnumerateRunes())
        {
            folded.Append(Rune.ToLowerInvariant(rune).ToString());
        }

        return Encoding.UTF8.GetBytes(folded.ToString());
    }

    /// <summary>Words: runs of letters, marks and numbers, each folded.</summary>
    public static List<byte[]> Words(string text)
    {
        var words = new List<byte[]>();
        var word = new StringBuilder();
        foreach (var rune in text.EnumerateRunes())
        {
            if (Rune.GetUnicodeCategory(rune) <= UnicodeCategory.OtherNumber)
            {
                word.Append(rune.ToString());
            }
            else if (word.Length > 0)
            {
                words.Add(Keyword(word.ToString(), exactCase: false));
                word.Clear();
            }
        }

        if (word.Length > 0)
        {
            words.Add(Keyword(word.ToString(), exactCase: false));
        }

        return words;
    }

    public static bool TryParseDate(string text, out long ticks)
    {
        if (DateTimeOffset.TryParseExact(text, DateFormats, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var parsed))
        {
            ticks = parsed.UtcTicks;
            return true;
        }

        ticks = 0;
        return false;
    }

    /// <summary>A query literal (already resolved to JSON) as a value of the field's type.</summary>
    public static object Literal(JsonElement literal, IndexFieldDefinition field) => field.Type switch
    {
        IndexFieldType.Keyword => Keyword(literal.GetString()!, field.ExactCase),
        IndexFieldType.Number => literal.GetDouble() + 0.0,
        IndexFieldType.DateTime when literal.ValueKind == JsonValueKind.Number => DateTime.UnixEpoch.Ticks + (literal.GetInt64() * TimeSpan.TicksPerMillisecond),
        IndexFieldType.DateTime => TryParseDate(literal.GetString()!, out var ticks) ? ticks : throw new InvalidOperationException($"bad date literal {literal}"),
        IndexFieldType.Bool => literal.GetBoolean(),
        _ => throw new InvalidOperationException($"no literal of {field.Type}"),
    };

    /// <summary>Orders two values of one field type: bytes ordinally, numbers, ticks, false before true.</summary>
    public static int Compare(object a, object b) => (a, b) switch
    {
        (byte[] x, byte[] y) => x.AsSpan().SequenceCompareTo(y),
        (double x, double y) => x.CompareTo(y),
        (long x, long y) => x.CompareTo(y),
        (bool x, bool y) => x.CompareTo(y),
        _ => throw new InvalidOperationException($"cannot compare {a.GetType().Name} with {b.GetType().Name}"),
    };

    /// <summary>A value as the results show it: folded keyword text, number, ISO 8601 UTC time, bool.</summary>
    public static object? Output(object value) => value switch
    {
        byte[] bytes => Encoding.UTF8.GetString(bytes),
        long ticks => IsoTime(ticks),
        _ => value,
    };

    public static string IsoTime(long ticks)
    {
        var time = new DateTime(ticks, DateTimeKind.Utc);
        var text = time.ToString("yyyy-MM-ddTHH:mm:ss", CultureInfo.InvariantCulture);
        var fraction = ticks % TimeSpan.TicksPerSecond;
        if (fraction != 0)
        {
            text += "." + fraction.ToString("D7", CultureInfo.InvariantCulture).TrimEnd('0');
        }

        return text + "Z";
    }
}
