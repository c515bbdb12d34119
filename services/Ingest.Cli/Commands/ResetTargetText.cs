using System.Globalization;
using System.Text.Json;

namespace Ingest.Cli.Commands;

/// <summary>
/// The <c>--to</c> of <c>ingest sources reset</c> as the request body the server takes:
/// <c>earliest</c>, <c>latest</c>, an ISO 8601 time (UTC when it has no offset), or
/// <c>topic:partition=offset,...</c>.
/// </summary>
internal static class ResetTargetText
{
    public const string Accepted = "earliest, latest, an ISO 8601 time (e.g. 2026-11-26T08:00:00Z) or topic:partition=offset[,topic:partition=offset...]";

    /// <summary>The JSON body for <paramref name="text"/>, or null with what is wrong.</summary>
    public static byte[]? ToBody(string text, out string? error)
    {
        error = null;
        using var buffer = new MemoryStream();
        using (var json = new Utf8JsonWriter(buffer))
        {
            json.WriteStartObject();
            if (text is "earliest" or "latest")
            {
                json.WriteString("to", text);
            }
            else if (text.Contains('=', StringComparison.Ordinal))
            {
                if (!TryWriteOffsets(json, text, out error))
                {
                    return null;
                }
            }
            else if (text.Length > 0 && char.IsAsciiDigit(text[0])
                && DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var time))
            {
                json.WriteString("to", time.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.FFFFFFF'Z'", CultureInfo.InvariantCulture));
            }
            else
            {
                error = $"--to '{text}' is none of {Accepted}";
                return null;
            }

            json.WriteEndObject();
        }

        return buffer.ToArray();
    }

    private static bool TryWriteOffsets(Utf8JsonWriter json, string text, out string? error)
    {
        // Grouped by topic as the server takes them; a partition named twice is a typo, not a choice.
        var byTopic = new Dictionary<string, SortedDictionary<int, long>>(StringComparer.Ordinal);
        foreach (var part in text.Split(',', StringSplitOptions.TrimEntries))
        {
            var equals = part.IndexOf('=', StringComparison.Ordinal);
            var colon = equals < 0 ? -1 : part.LastIndexOf(':', equals);
            if (colon <= 0
                || !int.TryParse(part.AsSpan(colon + 1, equals - colon - 1), NumberStyles.None, CultureInfo.InvariantCulture, out var partition)
                || !long.TryParse(part.AsSpan(equals + 1), NumberStyles.None, CultureInfo.InvariantCulture, out var offset))
            {
                error = $"--to: '{part}' is not topic:partition=offset (partition and offset whole numbers from 0); expected {Accepted}";
                return false;
            }

            var topic = part[..colon];
            if (!byTopic.TryGetValue(topic, out var partitions))
            {
                byTopic[topic] = partitions = [];
            }

            if (!partitions.TryAdd(partition, offset))
            {
                error = $"--to names {topic}:{partition} twice";
                return false;
            }
        }

        json.WriteStartObject("to");
        foreach (var (topic, partitions) in byTopic)
        {
            json.WriteStartObject(topic);
            foreach (var (partition, offset) in partitions)
            {
                json.WriteNumber(partition.ToString(CultureInfo.InvariantCulture), offset);
            }

            json.WriteEndObject();
        }

        json.WriteEndObject();
        error = null;
        return true;
    }
}
