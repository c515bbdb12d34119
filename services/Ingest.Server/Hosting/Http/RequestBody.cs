using System.Buffers;

namespace Ingest.Server.Hosting.Http;

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

    /// <summary>
    /// The body, or a problem: 413 when it is larger than <paramref name="limit"/> bytes, 400 when
    /// the client ends it early (a Content-Length longer than what it sends), 408 when it arrives
    /// slower than Kestrel's minimum data rate. Kestrel reports these by throwing from the read;
    /// unhandled they would surface as 500s.
    /// </summary>
    public static async Task<(RequestBody? Body, IResult? Problem)> ReadAsync(HttpContext context, int limit)
    {
        var request = context.Request;
        var declared = request.ContentLength;
        if (declared > limit)
        {
            return (null, ApiProblems.TooLarge(declared.Value, limit));
        }

        try
        {
            var body = await ReadUpToAsync(request.Body, declared, limit, context.RequestAborted).ConfigureAwait(false);
            return body is null ? (null, ApiProblems.TooLarge(declared ?? -1, limit)) : (body, null);
        }
        catch (BadHttpRequestException ex)
        {
            return (null, ex.StatusCode switch
            {
                StatusCodes.Status413PayloadTooLarge => ApiProblems.TooLarge(declared ?? -1, limit),
                StatusCodes.Status408RequestTimeout => ApiProblems.BodyTimeout(ex.Message),
                _ => ApiProblems.BadBody(ex.StatusCode, ex.Message),
            });
        }
        catch (Exception ex) when (ex is IOException || (ex is OperationCanceledException && context.RequestAborted.IsCancellationRequested))
        {
            // The connection broke mid-body; the client will most likely not read this answer.
            return (null, ApiProblems.BadBody(StatusCodes.Status400BadRequest, $"The connection ended before the request body was complete ({ex.Message})."));
        }
    }

    /// <summary>As <see cref="ReadAsync"/>, after refusing (415) a body declared as something other than JSON.</summary>
    public static Task<(RequestBody? Body, IResult? Problem)> ReadJsonAsync(HttpContext context, int limit) =>
        JsonContentType.IsJson(context.Request.ContentType)
            ? ReadAsync(context, limit)
            : Task.FromResult<(RequestBody?, IResult?)>((null, ApiProblems.UnsupportedMediaType(context.Request.ContentType)));

    private static async Task<RequestBody?> ReadUpToAsync(Stream stream, long? declared, int limit, CancellationToken cancellationToken)
    {
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

                var read = await stream.ReadAsync(buffer.AsMemory(length), cancellationToken).ConfigureAwait(false);
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
