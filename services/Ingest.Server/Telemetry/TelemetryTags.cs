namespace Ingest.Server.Telemetry;

/// <summary>Attribute names on the <c>Ingest</c> spans and metrics; <c>messaging.*</c> ones follow the OpenTelemetry semantic conventions.</summary>
public static class TelemetryTags
{
    public const string Source = "ingest.source";
    public const string MessagingSystem = "messaging.system";
    public const string Destination = "messaging.destination.name";
    public const string Partition = "messaging.destination.partition.id";
    public const string BatchMessageCount = "messaging.batch.message_count";
    public const string Index = Ingest.Indexing.Runtime.IndexingTelemetry.IndexTag;
}
