using CloudNative.CloudEvents;

namespace Ingest.Contracts.CloudEvents;

/// <summary>
/// The binary content mode of the CloudEvents AMQP protocol binding (1.0): <c>datacontenttype</c> is the
/// AMQP <c>content-type</c> property; every other attribute is an application property named
/// <c>cloudEvents:</c> + the attribute name, its value the canonical string form (the binding allows a
/// string for every attribute type, and AMQP 0-9-1 timestamps would lose the sub-second part); the
/// data is the body. Decoding also accepts the <c>cloudEvents_</c> prefix, which later revisions of
/// the binding use because JMS property names cannot contain a colon.
/// </summary>
public static class AmqpCloudEventBinding
{
    public const string PropertyPrefix = "cloudEvents:";
    public const string AlternatePropertyPrefix = "cloudEvents_";

    public static AmqpBinaryMessage Encode(CloudEvent cloudEvent)
    {
        ArgumentNullException.ThrowIfNull(cloudEvent);
        cloudEvent.Validate();
        var properties = new Dictionary<string, object?>(StringComparer.Ordinal)
        {
            [PropertyPrefix + CloudEventData.SpecVersionName] = cloudEvent.SpecVersion.VersionId,
        };
        foreach (var (attribute, value) in cloudEvent.GetPopulatedAttributes())
        {
            if (attribute != cloudEvent.SpecVersion.DataContentTypeAttribute)
            {
                properties[PropertyPrefix + attribute.Name] = attribute.Format(value);
            }
        }

        return new AmqpBinaryMessage(cloudEvent.DataContentType, properties, CloudEventData.ToBytes(cloudEvent.Data) ?? []);
    }

    /// <summary>The CloudEvent an AMQP binary-mode message carries; values may be strings or UTF-8 bytes (as RabbitMQ returns them).</summary>
    /// <exception cref="ArgumentException">No spec version, an unknown one, or a bad or missing required attribute.</exception>
    public static CloudEvent Decode(string? contentType, IEnumerable<KeyValuePair<string, object?>> applicationProperties, ReadOnlyMemory<byte> body)
    {
        ArgumentNullException.ThrowIfNull(applicationProperties);
        var normalized = new List<KeyValuePair<string, object?>>();
        foreach (var (name, value) in applicationProperties)
        {
            var prefix = name.StartsWith(PropertyPrefix, StringComparison.Ordinal) ? PropertyPrefix
                : name.StartsWith(AlternatePropertyPrefix, StringComparison.Ordinal) ? AlternatePropertyPrefix
                : null;
            if (prefix is not null)
            {
                normalized.Add(new(name[prefix.Length..], value));
            }
        }

        var cloudEvent = new CloudEvent(CloudEventData.SpecVersionFrom(normalized, CloudEventData.SpecVersionName));
        foreach (var (attribute, value) in normalized)
        {
            if (attribute != CloudEventData.SpecVersionName)
            {
                cloudEvent.SetAttributeFromString(attribute, CloudEventData.AsText(value));
            }
        }

        if (contentType is not null)
        {
            cloudEvent.DataContentType = contentType;
        }

        cloudEvent.Data = body.IsEmpty && contentType is null ? null : body.ToArray();
        return CloudEventData.Validated(cloudEvent);
    }
}
