namespace Ingest.Documents;

/// <summary>
/// A write batch was rejected before anything of it was written: an id, collection, body, source
/// or dead letter broke a rule. The message names the problem and the document id.
/// </summary>
public sealed class InvalidDocumentException : ArgumentException
{
    public InvalidDocumentException()
    {
    }

    public InvalidDocumentException(string message)
        : base(message)
    {
    }

    public InvalidDocumentException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    internal InvalidDocumentException(string? documentId, int operationIndex, string problem, Exception? innerException = null)
        : base(Describe(documentId, operationIndex, problem), innerException)
    {
        DocumentId = documentId;
        OperationIndex = operationIndex;
        Problem = problem;
    }

    /// <summary>The id of the document at fault, if the fault concerns one.</summary>
    public string? DocumentId { get; }

    /// <summary>The position of the faulty operation in its batch.</summary>
    public int OperationIndex { get; } = -1;

    /// <summary>What is wrong, without the id.</summary>
    public string? Problem { get; }

    private static string Describe(string? id, int index, string problem)
    {
        var who = id is null ? $"operation {index}" : $"document '{Shorten(id)}' (operation {index})";
        return $"Write batch rejected, nothing was written: {who}: {problem}";
    }

    private static string Shorten(string id) => id.Length <= 200 ? id : string.Concat(id.AsSpan(0, 200), "...");
}
