using Ingest.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

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

    /// <summary>Every endpoint the server maps, as routing sees them (with their metadata).</summary>
    public IReadOnlyList<Endpoint> Endpoints => ((IEndpointRouteBuilder)_app).DataSources.SelectMany(static source => source.Endpoints).ToList();

    public static Task<RunningServer> StartAsync(string dataDirectory, params string[] extraArguments) =>
        StartAsync(dataDirectory, logs: null, extraArguments);

    /// <summary>As the other overload; every log line the server writes also goes to <paramref name="logs"/>.</summary>
    public static async Task<RunningServer> StartAsync(string dataDirectory, ILoggerProvider? logs, params string[] extraArguments)
    {
        string[] arguments = ["--urls", "http://127.0.0.1:0", $"--Ingest:DataDirectory={dataDirectory}", .. extraArguments];
        var app = IngestHost.Build(arguments, logs is null ? null : builder => builder.Logging.AddProvider(logs));
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
