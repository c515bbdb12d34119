using Ingest.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Hosting;

/// <summary>The real server on a free loopback port, with its own data directory.</summary>
internal sealed class RunningServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private RunningServer(WebApplication app, IReadOnlyList<Uri> addresses)
    {
        _app = app;
        Addresses = addresses;
        Client = new HttpClient { BaseAddress = addresses[0] };
    }

    /// <summary>A plain client for the first address.</summary>
    public HttpClient Client { get; }

    /// <summary>Every address the server listens on (an http:// and an https:// one, say).</summary>
    public IReadOnlyList<Uri> Addresses { get; }

    /// <summary>The first https:// address.</summary>
    public Uri HttpsAddress => Addresses.First(static address => address.Scheme == Uri.UriSchemeHttps);

    /// <summary>The server's services, for tests that set up or inspect state directly (the document store).</summary>
    public IServiceProvider Services => _app.Services;

    public static Task<RunningServer> StartAsync(string dataDirectory, params string[] extraArguments) =>
        StartListeningAsync(dataDirectory, ["--urls", "http://127.0.0.1:0", .. extraArguments]);

    /// <summary>As <see cref="StartAsync"/> with no listen address of its own: <paramref name="arguments"/> say where to listen.</summary>
    public static async Task<RunningServer> StartListeningAsync(string dataDirectory, params string[] arguments)
    {
        var app = IngestHost.Build([$"--Ingest:DataDirectory={dataDirectory}", .. arguments]);
        try
        {
            await IngestHost.StartAsync(app);
        }
        catch
        {
            await app.DisposeAsync();
            throw;
        }

        var addresses = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses;
        return new RunningServer(app, [.. addresses.Select(static address => new Uri(address))]);
    }

    public async ValueTask DisposeAsync()
    {
        Client.Dispose();
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
