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

    /// <summary>Every endpoint the server maps, as routing sees them (with their metadata).</summary>
    public IReadOnlyList<Endpoint> Endpoints => ((IEndpointRouteBuilder)_app).DataSources.SelectMany(static source => source.Endpoints).ToList();

    public static Task<RunningServer> StartAsync(string dataDirectory, params string[] extraArguments) =>
        StartCoreAsync(dataDirectory, logs: null, ["--urls", "http://127.0.0.1:0", .. extraArguments]);

    /// <summary>As the other overload; every log line the server writes also goes to <paramref name="logs"/>.</summary>
    public static Task<RunningServer> StartAsync(string dataDirectory, ILoggerProvider? logs, params string[] extraArguments) =>
        StartCoreAsync(dataDirectory, logs, ["--urls", "http://127.0.0.1:0", .. extraArguments]);

    /// <summary>As <see cref="StartAsync(string, string[])"/> with no listen address of its own: <paramref name="arguments"/> say where to listen.</summary>
    public static Task<RunningServer> StartListeningAsync(string dataDirectory, params string[] arguments) =>
        StartCoreAsync(dataDirectory, logs: null, arguments);

    /// <summary>As the first overload, with <paramref name="configure"/> given the built application before it starts (a test's own middleware).</summary>
    public static Task<RunningServer> StartAsync(string dataDirectory, Action<WebApplication> configure, params string[] extraArguments) =>
        StartCoreAsync(dataDirectory, logs: null, ["--urls", "http://127.0.0.1:0", .. extraArguments], configure);

    private static async Task<RunningServer> StartCoreAsync(string dataDirectory, ILoggerProvider? logs, string[] arguments, Action<WebApplication>? configure = null)
    {
        var app = IngestHost.Build([$"--Ingest:DataDirectory={dataDirectory}", .. arguments], logs is null ? null : builder => builder.Logging.AddProvider(logs));
        try
        {
            configure?.Invoke(app);
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
