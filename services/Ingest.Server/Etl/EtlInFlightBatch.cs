namespace Ingest.Server.Etl;

/// <summary>
/// A batch handed to the broker and not yet recorded as progress: the last etag it covers (changes
/// of other collections included), its messages and transform failures, the task of the broker's
/// acknowledgement of all of its messages, the read buffer its bodies lie in and, in cluster mode, its highest log
/// positions (see <see cref="EtlBatch"/>).
/// </summary>
internal sealed record EtlInFlightBatch(long LastEtag, EtlPreparedBatch Prepared, Task Acknowledged, byte[]? BodyBuffer, EtlLogProgress? Highest = null);
