using System.Diagnostics;
using Ingest.Documents;

namespace Ingest.Server.Etl;

/// <summary>
/// Reads an ETL task's changes from the store's feed in batches bounded by bytes and time, copying
/// the bodies out of the store into read buffers it reuses once a batch was acknowledged. Used by one
/// caller at a time (the task's loop).
/// </summary>
internal sealed class EtlChangeReader(DocumentStore store, EtlCollectionFilter collections, EtlPipelineLimits limits)
{
    // What a message costs beyond its body: the CloudEvents headers, key and framing.
    private const int MessageOverheadBytes = 256;

    // Reading a change takes well under a microsecond: the clock is read once per this many, not per change.
    private const int ClockCheckInterval = 64;

    // Read buffers of acknowledged batches, for the next batches' bodies.
    private readonly Stack<byte[]> _bodyBuffers = new();

    // A batch ends at MaxBatchBytes of messages, bodies included: one buffer that size holds all but its last bodies.
    private int BodyBufferBytes => (int)Math.Min(limits.MaxBatchBytes, Array.MaxLength);

    /// <summary>
    /// Changes after <paramref name="afterEtag"/> until <see cref="EtlPipelineLimits.MaxBatchBytes"/> of messages or
    /// <see cref="EtlPipelineLimits.MaxBatchReadTime"/>; no count limit. The bodies are copied out of the store
    /// into one read buffer, reused from batch to batch (a body that does not fit gets an array of its own), rather
    /// than into an array per document.
    /// </summary>
    public EtlBatch Read(long afterEtag)
    {
        var changes = new List<Document>();
        var last = afterEtag;
        long bytes = 0;
        var read = 0;
        var buffer = _bodyBuffers.TryPop(out var reused) ? reused : null;
        var used = 0;
        var started = Stopwatch.GetTimestamp();
        using var reader = store.BeginRead();
        foreach (var change in reader.GetChangesSince(afterEtag))
        {
            if (collections.Includes(change.CollectionUtf8, out var collection))
            {
                var body = change.Body;
                ReadOnlyMemory<byte> copy;
                if (body.IsEmpty)
                {
                    copy = ReadOnlyMemory<byte>.Empty;
                }
                else
                {
                    buffer ??= GC.AllocateUninitializedArray<byte>(BodyBufferBytes);
                    if (body.Length <= buffer.Length - used)
                    {
                        body.CopyTo(buffer.AsSpan(used));
                        copy = new ReadOnlyMemory<byte>(buffer, used, body.Length);
                        used += body.Length;
                    }
                    else
                    {
                        copy = body.ToArray();
                    }
                }

                // Node-independent ids come from the position; an expired delete's expiry says the expiration made it.
                changes.Add(new Document(change.Id, collection, change.Etag, change.LastModified, change.Flags, copy)
                {
                    Position = change.Position,
                    ExpiresAt = change.IsDeleted ? change.ExpiresAt : null,
                });
                bytes += body.Length + MessageOverheadBytes;
            }

            last = change.Etag;
            if (bytes >= limits.MaxBatchBytes || (++read % ClockCheckInterval == 0 && Stopwatch.GetElapsedTime(started) >= limits.MaxBatchReadTime))
            {
                break;
            }
        }

        if (buffer is not null && used == 0)
        {
            _bodyBuffers.Push(buffer);
            buffer = null;
        }

        return new EtlBatch(changes, last, buffer);
    }

    /// <summary>Takes back the read buffer of a batch the broker acknowledged in full: neither the broker client nor anyone else reads its bodies any more.</summary>
    public void Reuse(byte[] bodyBuffer) => _bodyBuffers.Push(bodyBuffer);
}
