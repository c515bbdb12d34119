using System.Globalization;
using System.Text.Json;

namespace Ingest.Server.Grafana;

/// <summary>
/// Reads the JSON bodies the simPod JSON data source sends. Lenient where the plugin varies between versions (payload
/// as an object or as JSON text, <c>filters</c> or <c>adhocFilters</c>, unknown properties), strict where a value is
/// needed to answer (the time range of <c>/query</c>).
/// </summary>
internal static class GrafanaRequestReader
{
    public const int MaxBodyBytes = 1024 * 1024;

    public static JsonDocument Parse(ReadOnlyMemory<byte> body)
    {
        if (body.IsEmpty)
        {
            return JsonDocument.Parse("{}");
        }

        try
        {
            var document = JsonDocument.Parse(body, new JsonDocumentOptions { MaxDepth = 64 });
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                document.Dispose();
                throw new GrafanaRequestException("The request body must be a JSON object.");
            }

            return document;
        }
        catch (JsonException ex)
        {
            throw new GrafanaRequestException($"The request body is not valid JSON: {ex.Message}", ex);
        }
    }

    public static GrafanaQueryRequest ReadQuery(JsonElement root, TimeProvider time)
    {
        var (from, to) = ReadRange(root, time, required: true);
        var intervalMs = root.TryGetProperty("intervalMs", out var interval) && interval.ValueKind == JsonValueKind.Number && interval.TryGetInt64(out var ms) && ms > 0 ? ms : 0;
        var maxDataPoints = root.TryGetProperty("maxDataPoints", out var max) && max.ValueKind == JsonValueKind.Number && max.TryGetInt32(out var points) && points > 0 ? points : 0;
        var targets = new List<GrafanaTarget>();
        if (root.TryGetProperty("targets", out var array) && array.ValueKind == JsonValueKind.Array)
        {
            foreach (var target in array.EnumerateArray())
            {
                if (target.ValueKind != JsonValueKind.Object
                    || (target.TryGetProperty("hide", out var hide) && hide.ValueKind == JsonValueKind.True)
                    || !target.TryGetProperty("target", out var text) || text.ValueKind != JsonValueKind.String || string.IsNullOrWhiteSpace(text.GetString()))
                {
                    continue; // the plugin drops these too
                }

                var refId = target.TryGetProperty("refId", out var id) && id.ValueKind == JsonValueKind.String ? id.GetString()! : "A";
                targets.Add(new GrafanaTarget(refId, text.GetString()!.Trim(), ReadPayload(target)));
            }
        }

        return new GrafanaQueryRequest(from, to, intervalMs, maxDataPoints, targets, ReadFilters(root));
    }

    /// <summary><c>range.from</c>/<c>range.to</c> as ISO 8601; without a range (variable queries may send none), the last 6 hours.</summary>
    public static (DateTimeOffset From, DateTimeOffset To) ReadRange(JsonElement root, TimeProvider time, bool required)
    {
        if (!root.TryGetProperty("range", out var range) || range.ValueKind != JsonValueKind.Object)
        {
            if (required)
            {
                throw new GrafanaRequestException("The request has no 'range' with 'from' and 'to' (ISO 8601 times).");
            }

            var now = time.GetUtcNow();
            return (now.AddHours(-6), now);
        }

        var from = ReadTime(range, "from");
        var to = ReadTime(range, "to");
        return from > to ? throw new GrafanaRequestException($"range.from ({from:O}) is after range.to ({to:O}).") : (from, to);
    }

    /// <summary>The payload object; JSON text holding an object is read as that object (older plugin versions send text).</summary>
    public static JsonElement? ReadPayload(JsonElement owner)
    {
        if (!owner.TryGetProperty("payload", out var payload))
        {
            return null;
        }

        if (payload.ValueKind == JsonValueKind.Object)
        {
            return payload.Clone();
        }

        if (payload.ValueKind == JsonValueKind.String && payload.GetString() is { Length: > 0 } text)
        {
            try
            {
                using var parsed = JsonDocument.Parse(text);
                return parsed.RootElement.ValueKind == JsonValueKind.Object ? parsed.RootElement.Clone() : null;
            }
            catch (JsonException ex)
            {
                throw new GrafanaRequestException($"The payload is not a JSON object: {ex.Message}", ex);
            }
        }

        return null;
    }

    public static string? ReadString(JsonElement owner, string name) =>
        owner.ValueKind == JsonValueKind.Object && owner.TryGetProperty(name, out var value) && value.ValueKind == JsonValueKind.String ? value.GetString() : null;

    private static List<GrafanaAdHocFilter> ReadFilters(JsonElement root)
    {
        var filters = new List<GrafanaAdHocFilter>();
        foreach (var name in (ReadOnlySpan<string>)["filters", "adhocFilters"])
        {
            if (!root.TryGetProperty(name, out var array) || array.ValueKind != JsonValueKind.Array)
            {
                continue;
            }

            foreach (var filter in array.EnumerateArray())
            {
                var key = ReadString(filter, "key");
                if (string.IsNullOrEmpty(key))
                {
                    throw new GrafanaRequestException($"An ad hoc filter in '{name}' has no 'key'.");
                }

                var value = filter.TryGetProperty("value", out var v) ? v.ValueKind switch
                {
                    JsonValueKind.String => v.GetString()!,
                    JsonValueKind.Number or JsonValueKind.True or JsonValueKind.False => v.GetRawText(),
                    _ => string.Empty,
                } : string.Empty;
                filters.Add(new GrafanaAdHocFilter(key, ReadString(filter, "operator") ?? "=", value));
            }

            break; // a body with both lists carries the same filters twice
        }

        return filters;
    }

    private static DateTimeOffset ReadTime(JsonElement range, string name)
    {
        if (range.TryGetProperty(name, out var value))
        {
            if (value.ValueKind == JsonValueKind.String
                && DateTimeOffset.TryParse(value.GetString(), CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal | DateTimeStyles.AdjustToUniversal, out var time))
            {
                return time;
            }

            if (value.ValueKind == JsonValueKind.Number && value.TryGetInt64(out var ms))
            {
                return DateTimeOffset.FromUnixTimeMilliseconds(ms);
            }
        }

        throw new GrafanaRequestException($"range.{name} is missing or not an ISO 8601 time.");
    }
}
