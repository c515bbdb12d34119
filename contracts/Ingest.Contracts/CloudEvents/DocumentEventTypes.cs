namespace Ingest.Contracts.CloudEvents;

/// <summary>The CloudEvents <c>type</c> values of the events Ingest's ETL tasks publish.</summary>
public static class DocumentEventTypes
{
    /// <summary>A document was written (created or replaced); the event's data is its JSON body.</summary>
    public const string Put = "ingest.document.put";

    /// <summary>A document was deleted; the event has no data.</summary>
    public const string Deleted = "ingest.document.deleted";
}
