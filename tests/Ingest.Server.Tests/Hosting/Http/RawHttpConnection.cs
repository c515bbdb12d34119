using System.Net.Sockets;
using System.Text;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>
/// A plain TCP connection to the server for requests no well-behaved HTTP client sends: bodies
/// shorter than their Content-Length, half-closed connections, trickled chunks, raw request targets.
/// </summary>
internal sealed class RawHttpConnection : IAsyncDisposable
{
    private readonly TcpClient _client;
    private readonly NetworkStream _stream;

    private RawHttpConnection(TcpClient client)
    {
        _client = client;
        _stream = client.GetStream();
    }

    public static async Task<RawHttpConnection> OpenAsync(Uri server)
    {
        var client = new TcpClient();
        await client.ConnectAsync(server.Host, server.Port);
        return new RawHttpConnection(client);
    }

    public Task SendAsync(string text) => SendAsync(Encoding.ASCII.GetBytes(text));

    public async Task SendAsync(byte[] bytes)
    {
        await _stream.WriteAsync(bytes);
        await _stream.FlushAsync();
    }

    /// <summary>Sends a chunk of a chunked body (an empty one ends the body).</summary>
    public Task SendChunkAsync(string data) => SendAsync($"{Encoding.ASCII.GetByteCount(data):X}\r\n{data}\r\n");

    /// <summary>Half-closes: the server sees the end of the request stream but can still answer.</summary>
    public void EndSending() => _client.Client.Shutdown(SocketShutdown.Send);

    /// <summary>Reads one response: its status, headers and body (Content-Length, chunked, or until the server closes).</summary>
    public async Task<RawHttpResponse> ReadResponseAsync(CancellationToken cancellationToken = default)
    {
        var head = new StringBuilder();
        while (!head.ToString().EndsWith("\r\n\r\n", StringComparison.Ordinal))
        {
            var b = await ReadByteAsync(cancellationToken);
            if (b < 0)
            {
                throw new IOException($"The server closed the connection in the middle of the response head: '{head}'");
            }

            head.Append((char)b);
        }

        var lines = head.ToString().Split("\r\n", StringSplitOptions.RemoveEmptyEntries);
        var status = int.Parse(lines[0].Split(' ')[1], System.Globalization.CultureInfo.InvariantCulture);
        var headers = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        foreach (var line in lines.Skip(1))
        {
            var colon = line.IndexOf(':', StringComparison.Ordinal);
            headers[line[..colon].Trim()] = line[(colon + 1)..].Trim();
        }

        var body = new MemoryStream();
        if (headers.TryGetValue("Content-Length", out var length))
        {
            await CopyAsync(body, int.Parse(length, System.Globalization.CultureInfo.InvariantCulture), cancellationToken);
        }
        else if (headers.TryGetValue("Transfer-Encoding", out var encoding) && encoding.Contains("chunked", StringComparison.OrdinalIgnoreCase))
        {
            while (true)
            {
                var size = Convert.ToInt32((await ReadLineAsync(cancellationToken)).Split(';')[0], 16);
                await CopyAsync(body, size, cancellationToken);
                await ReadLineAsync(cancellationToken);
                if (size == 0)
                {
                    break;
                }
            }
        }
        else
        {
            await _stream.CopyToAsync(body, cancellationToken);
        }

        return new RawHttpResponse(status, headers, Encoding.UTF8.GetString(body.ToArray()));
    }

    public async ValueTask DisposeAsync()
    {
        await _stream.DisposeAsync();
        _client.Dispose();
    }

    private async Task<int> ReadByteAsync(CancellationToken cancellationToken)
    {
        var one = new byte[1];
        return await _stream.ReadAsync(one, cancellationToken) == 0 ? -1 : one[0];
    }

    private async Task<string> ReadLineAsync(CancellationToken cancellationToken)
    {
        var line = new StringBuilder();
        int b;
        while ((b = await ReadByteAsync(cancellationToken)) >= 0 && b != '\n')
        {
            if (b != '\r')
            {
                line.Append((char)b);
            }
        }

        return line.ToString();
    }

    private async Task CopyAsync(Stream destination, int count, CancellationToken cancellationToken)
    {
        var buffer = new byte[Math.Max(count, 1)];
        await _stream.ReadExactlyAsync(buffer.AsMemory(0, count), cancellationToken);
        await destination.WriteAsync(buffer.AsMemory(0, count), cancellationToken);
    }
}
