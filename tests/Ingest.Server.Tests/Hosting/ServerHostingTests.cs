using System.Net;
using System.Net.Http.Json;
using Ingest.Contracts.Http;
using Ingest.Server.Hosting.Http;
using Ingest.Server.Hosting.Http.Security;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Tests.Hosting;

public sealed class ServerHostingTests : IDisposable
{
    private readonly TestDirectory _directory = new();

    /// <summary>Not there yet: the server creates it.</summary>
    private string DataDirectory => _directory.Combine("data");

    public void Dispose() => _directory.Dispose();

    [Fact]
    public async Task Alive_and_health_answer_and_the_data_directory_is_created()
    {
        await using var server = await RunningServer.StartAsync(DataDirectory);

        Assert.Equal("alive", await server.Client.GetStringAsync(new Uri("/alive", UriKind.Relative)));
        var health = await server.Client.GetFromJsonAsync<HealthResponse>(new Uri("/health", UriKind.Relative));
        Assert.Equal("healthy", health?.Status);
        Assert.Equal(Path.GetFullPath(DataDirectory), health?.DataDirectory);
        Assert.True(File.Exists(Path.Combine(DataDirectory, "ingest.lock")));
    }

    [Fact]
    public async Task A_second_server_on_the_same_data_directory_fails_to_start_with_a_clear_message()
    {
        await using var first = await RunningServer.StartAsync(DataDirectory);

        var error = await Assert.ThrowsAsync<InvalidOperationException>(() => RunningServer.StartAsync(DataDirectory));
        Assert.Contains("Ingest:DataDirectory", error.Message, StringComparison.Ordinal);
        Assert.Contains("another Ingest server", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task With_an_api_key_every_endpoint_but_alive_requires_it()
    {
        const string key = "0123456789abcdef-test-key";
        await using var server = await RunningServer.StartAsync(DataDirectory, $"--Ingest:ApiKey={key}");

        Assert.Equal(HttpStatusCode.OK, (await server.Client.GetAsync(new Uri("/alive", UriKind.Relative))).StatusCode);
        var refused = await server.Client.GetAsync(new Uri("/health", UriKind.Relative));
        Assert.Equal(HttpStatusCode.Unauthorized, refused.StatusCode);
        Assert.Equal("application/problem+json", refused.Content.Headers.ContentType?.MediaType);

        using var request = new HttpRequestMessage(HttpMethod.Get, new Uri("/health", UriKind.Relative));
        request.Headers.Add(ApiKeyMiddleware.HeaderName, key);
        Assert.Equal(HttpStatusCode.OK, (await server.Client.SendAsync(request)).StatusCode);
    }

    [Theory]
    [InlineData("--Ingest:ApiKey=short", "Ingest:ApiKey")]
    [InlineData("--Ingest:MaxDocumentBytes=1000", "Ingest:MaxDocumentBytes must be between 1048576")]
    [InlineData("--Ingest:Http:RequestBodyGracePeriod=00:00:01", "Ingest:Http:RequestBodyGracePeriod must be longer than one second")]
    [InlineData("--Ingest:Http:MinRequestBodyBytesPerSecond=-1", "Ingest:Http:MinRequestBodyBytesPerSecond must be a number >= 0")]
    public async Task A_bad_setting_stops_start_up_and_names_the_setting(string argument, string expected)
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(DataDirectory, argument));
        Assert.Contains(expected, error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Bad_source_and_batching_settings_stop_start_up_and_each_is_named()
    {
        var error = await Assert.ThrowsAsync<OptionsValidationException>(() => RunningServer.StartAsync(
            DataDirectory, "--Ingest:Sources:Kafka:0:Topics:0=orders", "--Ingest:Sources:RabbitMq:0:Uri=http://nowhere/", "--Ingest:Batching:MaxMessages=0"));

        // Options classes are validated one after another; the first invalid one stops start-up.
        Assert.True(
            error.Message.Contains("Ingest:Batching:MaxMessages must be > 0", StringComparison.Ordinal)
            || (error.Message.Contains("Ingest:Sources:Kafka:0:BootstrapServers is required", StringComparison.Ordinal)
                && error.Message.Contains("Ingest:Sources:RabbitMq:0:Uri must be an amqp://", StringComparison.Ordinal)),
            error.Message);
    }
}
