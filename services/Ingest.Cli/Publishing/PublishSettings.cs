using Ingest.Contracts.Messages;

namespace Ingest.Cli.Publishing;

/// <summary>What every message of one publish carries besides its id and body.</summary>
/// <param name="Operation">Put sends the body; delete sends an empty body and <c>ingest-op: delete</c>.</param>
/// <param name="Collection">Sent as <c>ingest-collection</c> when set; otherwise the source's configured collection applies.</param>
/// <param name="Progress">Told of every acknowledged document, when progress is shown.</param>
internal sealed record PublishSettings(IngestOperation Operation, string? Collection, PublishProgress? Progress = null);
