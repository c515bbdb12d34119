using System.Net;
using System.Text;
using Microsoft.AspNetCore.Server.Kestrel.Core;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Options;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>Request bodies that break off, stall or overflow, sent over raw sockets to the real Kestrel server.</summary>
public sealed class RequestBodyFailureTests
{
    private static readonly TimeSpan ResponseTimeout = TimeSpan.FromSeconds(30);

    private static Uri Address(ApiTestServer server) => server.Client.BaseAddress!;

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public async Task A_body_shorter_than_its_content_length_is_handled_without_a_500_and_writes_nothing(bool closeEntirely)
    {
        await using var server = await StartAsync();
        using var outcomes = new RequestOutcomes(server.Server.Services);
        await using (var connection = await RawHttpConnection.OpenAsync(Address(server)))
        {
            await connection.SendAsync("PUT /docs/short?collection=C HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"a\":\"0123");
            if (!closeEntirely)
            {
                // Kestrel takes a half-close as the end of the connection, so the answer cannot be read here.
                connection.EndSending();
            }
        }

        var (status, error) = await outcomes.WaitForAsync("/docs/{**id}", ResponseTimeout);

        // The 400 problem is what the server answers; ASP.NET records 499 instead when it saw the
        // client go first. Before the fix Kestrel's exception reached the exception handler (a 500
        // and an error in the log).
        Assert.True(status is 400 or 499 && error is null, $"answered {status} ({error}); unhandled: {string.Join(", ", outcomes.Unhandled)}");
        Assert.Empty(outcomes.Unhandled);
        Assert.Null(server.Store.Get("short"));
        using var next = await server.PutAsync("/docs/next?collection=C", "{}");
        Assert.Equal(HttpStatusCode.Created, next.StatusCode);
    }

    [Theory]
    [InlineData(true, 0)]
    [InlineData(true, 10)]
    [InlineData(false, 0)]
    [InlineData(false, 10)]
    public async Task A_body_slower_than_the_minimum_data_rate_is_a_408_problem(bool chunked, int bytesPerSecond)
    {
        await using var server = await StartAsync("--Ingest:Http:MinRequestBodyBytesPerSecond=100", "--Ingest:Http:RequestBodyGracePeriod=00:00:02");
        await using var connection = await RawHttpConnection.OpenAsync(Address(server));
        var framing = chunked ? "Transfer-Encoding: chunked" : "Content-Length: 1000";
        await connection.SendAsync($"PUT /docs/slow?collection=C HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n{framing}\r\n\r\n");
        await SendAsync(connection, chunked, "{\"a\":\"");

        using var timeout = new CancellationTokenSource(ResponseTimeout);
        var reading = connection.ReadResponseAsync(timeout.Token);
        while (bytesPerSecond > 0 && !reading.IsCompleted)
        {
            // A trickle: a byte now and then, far below the configured 100 bytes/s.
            await Task.WhenAny(reading, Task.Delay(1000 / bytesPerSecond));
            if (!reading.IsCompleted)
            {
                try
                {
                    await SendAsync(connection, chunked, "x");
                }
                catch (IOException)
                {
                    break;
                }
            }
        }

        var response = await reading;

        Assert.Contains("minimum data rate", response.ProblemDetail(408), StringComparison.Ordinal);
        Assert.Null(server.Store.Get("slow"));
    }

    [Fact]
    public async Task A_chunked_body_over_the_document_limit_is_a_413_problem()
    {
        await using var server = await StartAsync("--Ingest:MaxDocumentBytes=1048576");
        await using var connection = await RawHttpConnection.OpenAsync(Address(server));
        await connection.SendAsync("PUT /docs/big?collection=C HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n");
        using var timeout = new CancellationTokenSource(ResponseTimeout);
        var reading = connection.ReadResponseAsync(timeout.Token);
        try
        {
            await connection.SendChunkAsync("{\"a\":\"" + new string('x', 1_048_600) + "\"}");
            await connection.SendChunkAsync(string.Empty);
        }
        catch (IOException)
        {
            // The server may answer and close before it has read everything.
        }

        var response = await reading;

        Assert.Contains("the limit is 1048576 bytes", response.ProblemDetail(413), StringComparison.Ordinal);
        Assert.Null(server.Store.Get("big"));
    }

    [Fact]
    public async Task Kestrels_request_body_limit_is_the_configured_document_limit()
    {
        await using var server = await StartAsync("--Ingest:MaxDocumentBytes=40000000");

        var kestrel = server.Server.Services.GetRequiredService<IOptions<KestrelServerOptions>>().Value;

        Assert.Equal(40_000_000, server.Store.Options.MaxBodyBytes);
        Assert.Equal(40_000_000, kestrel.Limits.MaxRequestBodySize);
    }

    [Fact]
    public async Task A_chunked_document_above_kestrels_default_limit_but_within_the_configured_one_is_stored()
    {
        // Kestrel's own default is 30,000,000 bytes; without one limit this body would be refused by Kestrel.
        await using var server = await StartAsync("--Ingest:MaxDocumentBytes=32000000");
        var body = Encoding.ASCII.GetBytes("{\"a\":\"" + new string('x', 31_000_000) + "\"}");
        using var content = new StreamContent(new UnseekableStream(body));
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json");

        using var response = await server.Client.PutAsync(Relative("/docs/large?collection=C"), content);

        Assert.Equal(HttpStatusCode.Created, response.StatusCode);
        Assert.Equal(body.Length, server.Store.Get("large")!.Body.Length);
    }

    private static Task SendAsync(RawHttpConnection connection, bool chunked, string data) =>
        chunked ? connection.SendChunkAsync(data) : connection.SendAsync(data);
}
