using Ingest.Server.Hosting;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http.Features;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Hosting.Https;

/// <summary>The real server started in the test with <c>Ingest:Https</c> settings, and the addresses it listens on.</summary>
internal sealed class HttpsServer : IAsyncDisposable
{
    private readonly WebApplication _app;

    private HttpsServer(WebApplication app, IReadOnlyList<Uri> addresses)
    {
        _app = app;
        Addresses = addresses;
    }

    public IReadOnlyList<Uri> Addresses { get; }

    /// <summary>The https:// address (the first, when there are several).</summary>
    public Uri Https => Addresses.First(static address => address.Scheme == Uri.UriSchemeHttps);

    /// <summary>Starts the server with these arguments and no listen address but <c>Ingest:Https:Url=https://127.0.0.1:0</c>, unless they give that or Kestrel:Endpoints.</summary>
    public static async Task<HttpsServer> StartAsync(string dataDirectory, params string[] settings)
    {
        string[] arguments = [$"--Ingest:DataDirectory={dataDirectory}", .. settings];
        if (!settings.Any(static setting => setting.StartsWith("--Ingest:Https:Url=", StringComparison.Ordinal) || setting.StartsWith("--Kestrel:Endpoints:", StringComparison.Ordinal)))
        {
            arguments = [.. arguments, "--Ingest:Https:Url=https://127.0.0.1:0"];
        }

        var app = IngestHost.Build(arguments);
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
        return new HttpsServer(app, [.. addresses.Select(static address => new Uri(address))]);
    }

    public async ValueTask DisposeAsync()
    {
        await _app.StopAsync();
        await _app.DisposeAsync();
    }
}
