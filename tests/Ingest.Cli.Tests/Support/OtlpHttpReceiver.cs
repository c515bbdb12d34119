using System.Net;
using System.Net.Sockets;

namespace Ingest.Cli.Tests.Support;

/// <summary>A real HTTP endpoint on loopback that answers OTLP/HTTP exports with 200 and keeps each request's path and body.</summary>
internal sealed class OtlpHttpReceiver : IDisposable
{
    private readonly HttpListener _listener = new();
    private readonly List<(string Path, byte[] Body)> _requests = [];
    private readonly Task _loop;

    public OtlpHttpReceiver()
    {
        Endpoint = $"http://127.0.0.1:{FreePort()}";
        _listener.Prefixes.Add(Endpoint + "/");
        _listener.Start();
        _loop = Task.Run(ServeAsync);
    }

    /// <summary>The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT.</summary>
    public string Endpoint { get; }

    public IReadOnlyList<(string Path, byte[] Body)> Requests
    {
        get
        {
            lock (_requests)
            {
                return [.. _requests];
            }
        }
    }

    public void Dispose()
    {
        _listener.Close();
        _ = _loop.ContinueWith(_ => { }, TaskScheduler.Default);
    }

    private async Task ServeAsync()
    {
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync().ConfigureAwait(false);
            }
            catch (Exception ex) when (ex is HttpListenerException or ObjectDisposedException or InvalidOperationException)
            {
                return;
            }

            using var body = new MemoryStream();
            await context.Request.InputStream.CopyToAsync(body).ConfigureAwait(false);
            lock (_requests)
            {
                _requests.Add((context.Request.Url!.AbsolutePath, body.ToArray()));
            }

            context.Response.StatusCode = 200;
            context.Response.Close();
        }
    }

    private static int FreePort()
    {
        using var probe = new TcpListener(IPAddress.Loopback, 0);
        probe.Start();
        return ((IPEndPoint)probe.LocalEndpoint).Port;
    }
}
