using System.Runtime.InteropServices;
using Ingest.Documents;
using Ingest.Server.Sources;

namespace Ingest.Server.Batching;

/// <summary>
/// Turns a batch's items into its slot's <see cref="WriteBatch"/>: puts, deletes and transformed
/// operations, dead letters (also for the items the store refused), and the source positions of
/// exactly the items being written. Items whose partition or channel the source has lost are
/// left out. The writer's loop only.
/// </summary>
internal sealed class WriteBatchBuilder
{
    private const int MaxDeadLetterBytes = 1024 * 1024;

    private readonly ISourcePositions _positions;
    private readonly bool _mapperValidationSuffices;

    // The items being written, copied aside only once one is dropped.
    private readonly List<IngestItem> _included = [];

    /// <param name="positions">The source's answer to which items are current, and their positions.</param>
    /// <param name="mapperValidationSuffices">The store may trust the mapper's body check (it is at least as strict as the store's own).</param>
    public WriteBatchBuilder(ISourcePositions positions, bool mapperValidationSuffices)
    {
        ArgumentNullException.ThrowIfNull(positions);
        _positions = positions;
        _mapperValidationSuffices = mapperValidationSuffices;
    }

    /// <summary>Builds <paramref name="slot"/>'s write from <paramref name="items"/>; the items in its <see cref="WriteSlot.Rejections"/> become dead letters.</summary>
    public WriteCounts Build(ReadOnlySpan<IngestItem> items, WriteSlot slot)
    {
        var write = slot.Write;
        var operationItems = slot.OperationItems;
        var rejections = slot.Rejections;
        write.Clear();
        operationItems.Clear();
        _included.Clear();
        long written = 0, deadLetters = 0, dropped = 0;

        // Items come in runs from one partition and epoch: ask the source once per run (a lock and
        // a lookup each), and copy the items being written aside only once one is dropped.
        string? runOrigin = null;
        int runPartition = 0, runEpoch = 0;
        var runCurrent = false;
        var allIncluded = true;
        for (var i = 0; i < items.Length; i++)
        {
            ref readonly var item = ref items[i];
            var position = item.Position;
            if (!ReferenceEquals(position.Origin, runOrigin) || position.Partition != runPartition || position.Epoch != runEpoch)
            {
                runCurrent = _positions.IsCurrent(item);
                (runOrigin, runPartition, runEpoch) = (position.Origin, position.Partition, position.Epoch);
            }

            if (!runCurrent)
            {
                if (allIncluded)
                {
                    allIncluded = false;
                    for (var j = 0; j < i; j++)
                    {
                        _included.Add(items[j]);
                    }
                }

                dropped++;
                continue;
            }

            if (!allIncluded)
            {
                _included.Add(item);
            }

            if (rejections.Count > 0 && rejections.TryGetValue(i, out var problem))
            {
                var raw = item.Payload.Length <= MaxDeadLetterBytes ? item.Payload.Span : item.Payload.Span[..MaxDeadLetterBytes];
                operationItems.Add(i);
                write.AddDeadLetter(raw, position.ToSourcePosition(), RejectionReason(item, raw.Length, problem));
                deadLetters++;
                continue;
            }

            switch (item.Kind)
            {
                case IngestItemKind.Put when item.BodyValidated && _mapperValidationSuffices:
                    operationItems.Add(i);
                    write.PutValidated(item.Id!, item.Collection!, item.Payload.Span, position.ToLogPosition());
                    written++;
                    break;
                case IngestItemKind.Put:
                    operationItems.Add(i);
                    write.Put(item.Id!, item.Collection!, item.Payload.Span, position.ToLogPosition());
                    written++;
                    break;
                case IngestItemKind.Delete:
                    operationItems.Add(i);
                    write.Delete(item.Id!, position.ToLogPosition());
                    written++;
                    break;
                case IngestItemKind.Transformed:
                    // Each operation points back at its message: one the store refuses turns the
                    // whole message into a dead letter, so a message never half-applies. Every
                    // operation records the message's log position.
                    var operations = item.Operations!;
                    var logPosition = position.ToLogPosition();
                    for (var j = 0; j < operations.Count; j++)
                    {
                        operationItems.Add(i);
                        var operation = operations[j];
                        if (operation.Kind == IngestItemKind.Delete)
                        {
                            write.Delete(operation.Id, logPosition);
                        }
                        else
                        {
                            write.Put(operation.Id, operation.Collection!, operation.Body, logPosition);
                        }
                    }

                    written += operations.Count;
                    break;
                default:
                    operationItems.Add(i);
                    write.AddDeadLetter(item.Payload.Span, position.ToSourcePosition(), item.DeadLetterReason ?? (item.Kind == IngestItemKind.AwaitingTransform ? "not transformed: the source has no transform" : "unknown"));
                    deadLetters++;
                    break;
            }
        }

        var beingWritten = allIncluded ? items : CollectionsMarshal.AsSpan(_included);
        if (beingWritten.Length > 0)
        {
            // Positions commit in the same transaction as the documents they account for, and
            // for exactly those: the source may lose a partition while this batch is built.
            _positions.AddPositions(write, beingWritten);
        }

        return new WriteCounts(written, deadLetters, dropped);
    }

    // The dead letter's reason for an item the store refused (its stored bytes cut to storedLength).
    private static string RejectionReason(in IngestItem item, int storedLength, string problem) => item.Kind switch
    {
        IngestItemKind.DeadLetter => $"{item.DeadLetterReason} (stored truncated to {storedLength} of {item.Payload.Length} bytes: {problem})",
        IngestItemKind.Transformed => $"Rejected by the store: the transform's output: {problem}",
        _ => $"Rejected by the store: {problem}",
    };
}
