namespace Ingest.Contracts.Messages;

/// <summary>What a message asks Ingest to do with its document.</summary>
public enum IngestOperation
{
    /// <summary>Store the message body as the document (insert or replace).</summary>
    Put,

    /// <summary>Delete the document; the body is ignored.</summary>
    Delete,
}
