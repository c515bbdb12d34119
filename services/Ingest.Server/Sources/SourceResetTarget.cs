using System.Globalization;
using System.Text.Json;

namespace Ingest.Server.Sources;

/// <summary>
/// Where <c>POST /sources/{name}/reset</c> moves a source: the body's <c>to</c> is "earliest",
/// "latest", an ISO 8601 time, or <c>{"topic": {"partition": offset}}</c>.
/// </summary>
public sealed record SourceResetTarget
{
    /// <summary>What the API and the CLI say a reset accepts, for error messages.</summary>
    public const string Accepted =
        """the body is {"to": "earliest" | "latest" | "<ISO 8601 time, e.g. 2026-11-26T08:00:00Z>" | {"<topic>": {"<partition>": <offset>}}}""";

    // Before Earliest and Latest: static initializers run in order.
    private static IReadOnlyDictionary<string, IReadOnlyDictionary<int, long>> Empty { get; } = new Dictionary<string, IReadOnlyDictionary<int, long>>();

    private SourceResetTarget(SourceResetKind kind, DateTimeOffset time, IReadOnlyDictionary<string, IReadOnlyDictionary<int, long>> offsets)
    {
        Kind = kind;
        Time = time;
        Offsets = offsets;
    }

    public SourceResetKind Kind { get; }

    /// <summary>For <see cref="SourceResetKind.Time"/>.</summary>
    public DateTimeOffset Time { get; }

    /// <summary>For <see cref="SourceResetKind.Offsets"/>: topic, then partition, then the next offset to consume.</summary>
    public IReadOnlyDictionary<string, IReadOnlyDictionary<int, long>> Offsets { get; }

    public static SourceResetTarget Earliest { get; } = new(SourceResetKind.Earliest, default, Empty);

    public static SourceResetTarget Latest { get; } = new(SourceResetKind.Latest, default, Empty);

    public static SourceResetTarget At(DateTimeOffset time) => new(SourceResetKind.Time, time, Empty);

    public static SourceResetTarget To(IReadOnlyDictionary<string, IReadOnlyDictionary<int, long>> offsets)
    {
        ArgumentNullException.ThrowIfNull(offsets);
        return new(SourceResetKind.Offsets, default, offsets);
    }

    /// <summary>How logs and answers name the target: "earliest", "latest", the time in UTC, or "offsets".</summary>
    public override string ToString() => Kind switch
    {
        SourceResetKind.Earliest => "earliest",
        SourceResetKind.Latest => "latest",
        SourceResetKind.Time => Time.UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.FFFFFFF'Z'", CultureInfo.InvariantCulture),
        _ => "offsets",
    };

    /// <summary>Reads a request body; false with a message that names what is wrong and what is accepted.</summary>
    public static bool TryParse(ReadOnlySpan<byte> json, out SourceResetTarget? target, out string? error)
    {
        target = null;
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(json.ToArray());
        }
        catch (JsonException ex)
        {
            error = $"The body is not JSON ({ex.Message}); {Accepted}.";
            return false;
        }

        using (document)
        {
            if (document.RootElement.ValueKind != JsonValueKind.Object || !document.RootElement.TryGetProperty("to", out var to))
            {
                error = $"The body has no 'to'; {Accepted}.";
                return false;
            }

            return to.ValueKind switch
            {
                JsonValueKind.String => TryParseText(to.GetString()!, out target, out error),
                JsonValueKind.Object => TryParseOffsets(to, out target, out error),
                _ => Fail($"'to' is {to.ValueKind.ToString().ToLowerInvariant()}; {Accepted}.", out target, out error),
            };
        }
    }

    private static bool TryParseText(string text, out SourceResetTarget? target, out string? error)
    {
        if (string.Equals(text, "earliest", StringComparison.OrdinalIgnoreCase))
        {
            target = Earliest;
            error = null;
            return true;
        }

        if (string.Equals(text, "latest", StringComparison.OrdinalIgnoreCase))
        {
            target = Latest;
            error = null;
            return true;
        }

        // A time without an offset is UTC, as Kafka's timestamps are.
        if (text.Length > 0 && char.IsAsciiDigit(text[0])
            && DateTimeOffset.TryParse(text, CultureInfo.InvariantCulture, DateTimeStyles.AssumeUniversal, out var time))
        {
            target = At(time);
            error = null;
            return true;
        }

        return Fail($"'to' is '{text}', neither 'earliest', 'latest' nor an ISO 8601 time; {Accepted}.", out target, out error);
    }

    private static bool TryParseOffsets(JsonElement to, out SourceResetTarget? target, out string? error)
    {
        var offsets = new Dictionary<string, IReadOnlyDictionary<int, long>>(StringComparer.Ordinal);
        foreach (var topic in to.EnumerateObject())
        {
            if (topic.Value.ValueKind != JsonValueKind.Object)
            {
                return Fail($"'to.{topic.Name}' is not an object of partitions and offsets; {Accepted}.", out target, out error);
            }

            var partitions = new Dictionary<int, long>();
            foreach (var partition in topic.Value.EnumerateObject())
            {
                if (!int.TryParse(partition.Name, NumberStyles.None, CultureInfo.InvariantCulture, out var number))
                {
                    return Fail($"'to.{topic.Name}' names partition '{partition.Name}'; a partition is a number from 0; {Accepted}.", out target, out error);
                }

                if (partition.Value.ValueKind != JsonValueKind.Number || !partition.Value.TryGetInt64(out var offset) || offset < 0)
                {
                    return Fail($"'to.{topic.Name}.{partition.Name}' is {partition.Value.GetRawText()}; an offset is a whole number from 0; {Accepted}.", out target, out error);
                }

                partitions[number] = offset;
            }

            if (partitions.Count == 0)
            {
                return Fail($"'to.{topic.Name}' names no partition; {Accepted}.", out target, out error);
            }

            offsets[topic.Name] = partitions;
        }

        if (offsets.Count == 0)
        {
            return Fail($"'to' names no topic; {Accepted}.", out target, out error);
        }

        target = To(offsets);
        error = null;
        return true;
    }

    private static bool Fail(string message, out SourceResetTarget? target, out string? error)
    {
        target = null;
        error = message;
        return false;
    }
}
