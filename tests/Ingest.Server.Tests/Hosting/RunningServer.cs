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

    private RunningServer(WebApplication app, Uri address)
    {
        _app = app;
        Client = new HttpClient { BaseAddress = address };
    }

    public HttpClient Client { get; }

    /// <summary>The server's services, for tests that set up or inspect state directly (the document store).</summary>
    public IServiceProvider Services => _app.Services;

    public static Task<RunningServer> StartAsync(string dataDirectory, params string[] extraArguments) =>
        StartAsync(dataDirectory, static _ => { }, extraArguments);

    /// <summary>As above, with <paramref name="configure"/> given the built application before it starts (a test's own middleware).</summary>
    public static async Task<RunningServer> StartAsync(string dataDirectory, Action<WebApplication> configure, params string[] extraArguments)
    {
        string[] arguments = ["--urls", "http://127.0.0.1:0", $"--Ingest:DataDirectory={dataDirectory}", .. extraArguments];
        var app = IngestHost.Build(arguments);
        try
        {
            configure(app);
        }
        catch
        {
            await app.DisposeAsync();
            throw;
        }

        try
        {
            await IngestHost.StartAsync(app);
        }
        catch
        {
            await app.DisposeAsync();
            throw;
        }

        var address = app.Services.GetRequiredService<IServer>().Features.GetRequiredFeature<IServerAddressesFeature>().Addresses.First();
        return new RunningServer(app, new Uri(address));
    }

    public async ValueTask DisposeAsync()
    {
        Client.Dispose();
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
