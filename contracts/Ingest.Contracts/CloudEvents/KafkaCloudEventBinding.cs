using System.Text;
using CloudNative.CloudEvents;

namespace Ingest.Contracts.CloudEvents;

/// <summary>
/// The binary content mode of the CloudEvents Kafka protocol binding (1.0): every attribute but
/// <c>datacontenttype</c> is a header named <c>ce_</c> + the attribute name, its value the attribute's
/// canonical string form in UTF-8; <c>datacontenttype</c> is the <c>content-type</c> header; the data is
/// the record value. Written here because the SDK's Kafka binding package is not available to us.
/// </summary>
public static class KafkaCloudEventBinding
{
    public const string HeaderPrefix = "ce_";
    public const string ContentTypeHeader = "content-type";

    /// <summary>Headers and value for <paramref name="cloudEvent"/>, whose data is bytes or absent.</summary>
    public static KafkaBinaryMessage Encode(CloudEvent cloudEvent)
    {
        ArgumentNullException.ThrowIfNull(cloudEvent);
        cloudEvent.Validate();
        var headers = new List<KeyValuePair<string, byte[]>>(8)
        {
            new(HeaderPrefix + CloudEventData.SpecVersionName, Encoding.UTF8.GetBytes(cloudEvent.SpecVersion.VersionId)),
        };
        foreach (var (attribute, value) in cloudEvent.GetPopulatedAttributes())
        {
            var text = attribute.Format(value);
            var name = attribute == cloudEvent.SpecVersion.DataContentTypeAttribute ? ContentTypeHeader : HeaderPrefix + attribute.Name;
            headers.Add(new(name, Encoding.UTF8.GetBytes(text)));
        }

        return new KafkaBinaryMessage(headers, CloudEventData.ToBytes(cloudEvent.Data));
    }

    /// <summary>
    /// The CloudEvent a binary-mode record carries. Headers without the <c>ce_</c> prefix (other than
    /// <c>content-type</c>) are not attributes and are ignored.
    /// </summary>
    /// <exception cref="ArgumentException">No <c>ce_specversion</c>, an unknown spec version, or a bad or missing required attribute.</exception>
    public static CloudEvent Decode(IEnumerable<KeyValuePair<string, byte[]?>> headers, byte[]? value)
    {
        ArgumentNullException.ThrowIfNull(headers);
        var list = headers.ToList();
        var version = CloudEventData.SpecVersionFrom(list, HeaderPrefix + CloudEventData.SpecVersionName);
        var cloudEvent = new CloudEvent(version);
        foreach (var (name, raw) in list)
        {
            var text = raw is null ? string.Empty : Encoding.UTF8.GetString(raw);
            if (string.Equals(name, ContentTypeHeader, StringComparison.OrdinalIgnoreCase))
            {
                cloudEvent.DataContentType = text;
            }
            else if (name.StartsWith(HeaderPrefix, StringComparison.OrdinalIgnoreCase))
            {
                var attribute = name[HeaderPrefix.Length..].ToLowerInvariant();
                if (attribute != CloudEventData.SpecVersionName)
                {
                    cloudEvent.SetAttributeFromString(attribute, text);
                }
            }
        }

        cloudEvent.Data = value;
        return CloudEventData.Validated(cloudEvent);
    }
}
