using System.Buffers;

namespace Ingest.Server.Api;

/// <summary>Reads a request body into one pooled buffer, refusing at once what is over the limit.</summary>
internal sealed class RequestBody : IDisposable
{
    private byte[] _buffer;

    private RequestBody(byte[] buffer, int length)
    {
        _buffer = buffer;
        Length = length;
    }

    public int Length { get; }

    public ReadOnlySpan<byte> Span => _buffer.AsSpan(0, Length);

    /// <summary>The body, or null when it is larger than <paramref name="limit"/> bytes.</summary>
    public static async Task<RequestBody?> ReadAsync(HttpRequest request, int limit, CancellationToken cancellationToken)
    {
        var declared = request.ContentLength;
        if (declared > limit)
        {
            return null;
        }

        // One byte over the limit tells a too-large body apart from one exactly at it.
        var buffer = ArrayPool<byte>.Shared.Rent((int)Math.Min((declared ?? 16 * 1024) + 1, (long)limit + 1));
        var length = 0;
        try
        {
            while (true)
            {
                if (length == buffer.Length)
                {
                    if (length > limit)
                    {
                        ArrayPool<byte>.Shared.Return(buffer);
                        return null;
                    }

                    var larger = ArrayPool<byte>.Shared.Rent((int)Math.Min(buffer.Length * 2L, (long)limit + 1));
                    buffer.AsSpan(0, length).CopyTo(larger);
                    ArrayPool<byte>.Shared.Return(buffer);
                    buffer = larger;
                }

                var read = await request.Body.ReadAsync(buffer.AsMemory(length), cancellationToken).ConfigureAwait(false);
                if (read == 0)
                {
                    break;
                }

                length += read;
            }
        }
        catch
        {
            ArrayPool<byte>.Shared.Return(buffer);
            throw;
        }

        if (length > limit)
        {
            ArrayPool<byte>.Shared.Return(buffer);
            return null;
        }

        return new RequestBody(buffer, length);
    }

    public void Dispose()
    {
        var buffer = Interlocked.Exchange(ref _buffer, []);
        if (buffer.Length > 0)
        {
            ArrayPool<byte>.Shared.Return(buffer);
        }
    }
}
