using System.Net;
using System.Net.Sockets;
using Ingest.Server.Hosting;
using Ingest.Server.Tests.Crash;

namespace Ingest.Server.Tests.Hosting;

/// <summary>Where the server listens: the environment and the command line choose, the built-in default applies only when neither does.</summary>
public sealed class ListenAddressTests : IDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(60);
    private readonly TestDirectory _dataDirectory = new();

    public void Dispose() => _dataDirectory.Dispose();

    [Theory]
    [InlineData("ASPNETCORE_URLS")]
    [InlineData("URLS")]
    public async Task The_server_process_listens_where_the_urls_environment_variable_says(string variable)
    {
        var port = FreePort();
        var environment = new Dictionary<string, string> { [variable] = $"http://127.0.0.1:{port}", ["ASPNETCORE_HTTP_PORTS"] = string.Empty };

        await AssertListensOnAsync(port, [], environment);
    }

    [Fact]
    public async Task The_urls_argument_wins_over_the_environment()
    {
        var (argumentPort, environmentPort) = (FreePort(), FreePort());
        var environment = new Dictionary<string, string> { ["ASPNETCORE_URLS"] = $"http://127.0.0.1:{environmentPort}" };

        await AssertListensOnAsync(argumentPort, ["--urls", $"http://127.0.0.1:{argumentPort}"], environment);
    }

    [Fact]
    public async Task Without_any_address_the_default_is_loopback_port_8080_and_any_address_replaces_it()
    {
        await using (var defaulted = IngestHost.Build([$"--Ingest:DataDirectory={_dataDirectory.Path}"]))
        {
            Assert.Equal(HttpOptions.DefaultUrls, defaulted.Configuration["urls"]);
        }

        await using (var chosen = IngestHost.Build([$"--Ingest:DataDirectory={_dataDirectory.Path}", "--urls=http://127.0.0.1:9999"]))
        {
            Assert.Equal("http://127.0.0.1:9999", chosen.Configuration["urls"]);
        }

        await using (var ports = IngestHost.Build([$"--Ingest:DataDirectory={_dataDirectory.Path}", "--http_ports=9998"]))
        {
            Assert.Null(ports.Configuration["urls"]);
        }
    }

    /// <summary>Starts the server process, which must say it listens on <paramref name="port"/> and answer there, then stop cleanly.</summary>
    private async Task AssertListensOnAsync(int port, string[] listenArguments, Dictionary<string, string> environment)
    {
        using var server = ServerProcess.Start(_dataDirectory.Path, [], listenArguments, environment);
        server.WaitFor($"Now listening on: http://127.0.0.1:{port}", StartTimeout);

        using var client = new HttpClient();
        Assert.Equal("alive", await client.GetStringAsync(new Uri($"http://127.0.0.1:{port}/alive")));
        Assert.Equal(0, server.Stop(TimeSpan.FromSeconds(30)));
    }

    private static int FreePort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }
}
