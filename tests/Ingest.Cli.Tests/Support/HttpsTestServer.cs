using System.Net;
using System.Security.Cryptography.X509Certificates;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Ingest.Cli.Tests.Support;

/// <summary>
/// Kestrel on a loopback port with a certificate the test made, answering <c>/health</c> and <c>/indexes</c> as an
/// Ingest server does: a real TLS server (HTTP/1.1 and HTTP/2) for the CLI to trust or refuse.
/// </summary>
internal sealed class HttpsTestServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private HttpsTestServer(WebApplication app, Uri url)
    {
        _app = app;
        Url = url;
    }

    /// <summary><c>https://127.0.0.1:PORT/</c>.</summary>
    public Uri Url { get; }

    public static async Task<HttpsTestServer> StartAsync(X509Certificate2 certificate)
    {
        var builder = WebApplication.CreateSlimBuilder();
        builder.Logging.ClearProviders();
        builder.WebHost.UseKestrel(kestrel => kestrel.Listen(IPAddress.Loopback, 0, listen => listen.UseHttps(certificate)));
        var app = builder.Build();
        app.MapGet("/health", () => Results.Text("{\"status\":\"healthy\"}", "application/json"));
        app.MapGet("/indexes", () => Results.Text("{\"items\":[]}", "application/json"));
        await app.StartAsync();
        var address = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.First();
        return new HttpsTestServer(app, new Uri(address + "/"));
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
