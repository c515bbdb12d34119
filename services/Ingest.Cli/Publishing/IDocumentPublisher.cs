namespace Ingest.Cli.Publishing;

/// <summary>Sends validated documents to one broker destination and returns once the broker has them all.</summary>
internal interface IDocumentPublisher
{
    /// <summary>Where the documents go, for messages: <c>kafka topic orders</c>.</summary>
    string Destination { get; }

    /// <summary>
    /// Publishes every document and waits until the broker acknowledged each one. Throws
    /// <see cref="CommandFailedException"/> when the broker cannot be reached or any document was not
    /// acknowledged, saying how many were.
    /// </summary>
    Task PublishAsync(IReadOnlyList<InputDocument> documents, PublishSettings settings, CancellationToken cancellationToken);
}
