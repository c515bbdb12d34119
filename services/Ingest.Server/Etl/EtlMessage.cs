using CloudNative.CloudEvents;

namespace Ingest.Server.Etl;

/// <summary>
/// One message to publish: the CloudEvent (its data the body, absent for a delete), the Kafka key,
/// the topic or routing key (null: the task's), and headers a transform added.
/// </summary>
internal sealed record EtlMessage(CloudEvent Event, string Key, string? Destination, IReadOnlyList<KeyValuePair<string, string>> Headers);
