namespace Ingest.Server.Expiration;

/// <summary>One collection's retention in configuration (<c>Ingest:Expiration:Collections:NAME</c>).</summary>
public sealed class CollectionRetentionOptions
{
    /// <summary>How long documents are kept, e.g. <c>30.00:00:00</c>; required.</summary>
    public TimeSpan? Keep { get; set; }

    /// <summary>A top-level property holding an ISO 8601 date to count from; absent = the time the document was written.</summary>
    public string? Field { get; set; }
}
