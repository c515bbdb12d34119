using System.Net;
using System.Text;

namespace Ingest.Cli.Tests.Support;

/// <summary>A loopback HTTP server that answers every request with what the test says.</summary>
internal sealed class StubHttpServer : IDisposable
{
    private readonly HttpListener _listener = new();
    private readonly Func<HttpListenerRequest, (HttpStatusCode Status, byte[] Body, string ContentType)> _respond;
    private readonly Task _loop;

    public StubHttpServer(Func<HttpListenerRequest, (HttpStatusCode Status, string Body)> respond)
        : this(request =>
        {
            var (status, body) = respond(request);
            return (status, Encoding.UTF8.GetBytes(body), "application/json");
        })
    {
    }

    /// <summary>A server whose answers are bytes of any content type (a backup).</summary>
    public StubHttpServer(Func<HttpListenerRequest, (HttpStatusCode Status, byte[] Body, string ContentType)> respond)
    {
        _respond = respond;
        Url = new Uri($"http://127.0.0.1:{LocalPorts.Unused()}/");
        _listener.Prefixes.Add(Url.ToString());
        _listener.Start();
        _loop = Task.Run(ServeAsync);
    }

    public Uri Url { get; }

    public List<string> RequestedPaths { get; } = [];

    public void Dispose()
    {
        _listener.Close();
        try
        {
            _loop.Wait(TimeSpan.FromSeconds(5));
        }
        catch (AggregateException)
        {
            // The listener was closed under a pending GetContextAsync: that is how the loop ends.
        }
    }

    private async Task ServeAsync()
    {
        while (_listener.IsListening)
        {
            HttpListenerContext context;
            try
            {
                context = await _listener.GetContextAsync();
            }
            catch (Exception ex) when (ex is HttpListenerException or ObjectDisposedException)
            {
                return;
            }

            lock (RequestedPaths)
            {
                RequestedPaths.Add(context.Request.Url!.AbsolutePath);
            }

            var (status, bytes, contentType) = _respond(context.Request);
            context.Response.StatusCode = (int)status;
            context.Response.ContentType = contentType;
            await context.Response.OutputStream.WriteAsync(bytes);
            context.Response.Close();
        }
    }
}
