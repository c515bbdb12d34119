using System.Text;
using CloudNative.CloudEvents;

namespace Ingest.Contracts.CloudEvents;

/// <summary>What both binary-mode bindings share: data as bytes, and the spec version a message declares.</summary>
internal static class CloudEventData
{
    /// <summary>The <c>specversion</c> attribute, which the SDK keeps apart from the others.</summary>
    public const string SpecVersionName = "specversion";

    public static byte[]? ToBytes(object? data) => data switch
    {
        null => null,
        byte[] bytes => bytes,
        ReadOnlyMemory<byte> memory => memory.ToArray(),
        Memory<byte> memory => memory.ToArray(),
        _ => throw new ArgumentException(
            $"Binary content mode needs the event's data as bytes (byte[] or ReadOnlyMemory<byte>), not {data.GetType().Name}; serialize it first.", nameof(data)),
    };

    /// <summary>The decoded event once its required attributes are all there.</summary>
    public static CloudEvent Validated(CloudEvent cloudEvent)
    {
        try
        {
            return cloudEvent.Validate();
        }
        catch (InvalidOperationException ex)
        {
            throw new ArgumentException($"The message is not a valid CloudEvent: {ex.Message}.", ex);
        }
    }

    public static CloudEventsSpecVersion SpecVersionFrom<TValue>(IReadOnlyList<KeyValuePair<string, TValue>> properties, string name)
    {
        for (var i = 0; i < properties.Count; i++)
        {
            if (string.Equals(properties[i].Key, name, StringComparison.OrdinalIgnoreCase))
            {
                var id = AsText(properties[i].Value);
                return CloudEventsSpecVersion.FromVersionId(id)
                    ?? throw new ArgumentException($"The message declares CloudEvents spec version '{id}', which is not supported (1.0 is).");
            }
        }

        throw new ArgumentException($"The message carries no '{name}', so it is not a binary-mode CloudEvent.");
    }

    /// <summary>A header value as text: brokers hand strings back as strings or as UTF-8 bytes.</summary>
    public static string AsText(object? value) => value switch
    {
        null => string.Empty,
        string text => text,
        byte[] bytes => Encoding.UTF8.GetString(bytes),
        ReadOnlyMemory<byte> memory => Encoding.UTF8.GetString(memory.Span),
        DateTimeOffset time => time.ToString("O", System.Globalization.CultureInfo.InvariantCulture),
        DateTime time => time.ToString("O", System.Globalization.CultureInfo.InvariantCulture),
        IFormattable formattable => formattable.ToString(null, System.Globalization.CultureInfo.InvariantCulture),
        _ => value.ToString() ?? string.Empty,
    };
}
