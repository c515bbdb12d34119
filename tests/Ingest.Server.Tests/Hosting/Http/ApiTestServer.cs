using System.Net;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using Ingest.Documents;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>A running server with its own data directory, and helpers for the API tests.</summary>
internal sealed class ApiTestServer : IAsyncDisposable
{
    private readonly TestDirectory _dataDirectory;

    private ApiTestServer(TestDirectory dataDirectory, RunningServer server)
    {
        _dataDirectory = dataDirectory;
        Server = server;
    }

    public RunningServer Server { get; }

    public HttpClient Client => Server.Client;

    public DocumentStore Store => Server.Services.GetRequiredService<DocumentStore>();

    public static Task<ApiTestServer> StartAsync(params string[] extraArguments) => StartAsync(logs: null, extraArguments);

    /// <summary>As the other overload; the server's log lines also go to <paramref name="logs"/>.</summary>
    public static async Task<ApiTestServer> StartAsync(ILoggerProvider? logs, params string[] extraArguments)
    {
        var directory = new TestDirectory();
        try
        {
            return new ApiTestServer(directory, await RunningServer.StartAsync(directory.Path, logs, extraArguments));
        }
        catch
        {
            directory.Dispose();
            throw;
        }
    }

    public static Uri Relative(string path) => new(path, UriKind.Relative);

    public static ByteArrayContent Json(string json) => Json(Encoding.UTF8.GetBytes(json));

    public static ByteArrayContent Json(byte[] utf8)
    {
        var content = new ByteArrayContent(utf8);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        return content;
    }

    public Task<HttpResponseMessage> PutAsync(string path, string json) => Client.PutAsync(Relative(path), Json(json));

    /// <summary>A PUT of <c>{}</c> whose collection comes from the <c>ingest-collection</c> header.</summary>
    public async Task<HttpResponseMessage> PutWithCollectionHeaderAsync(string path, string collectionHeader)
    {
        using var request = new HttpRequestMessage(HttpMethod.Put, Relative(path)) { Content = Json("{}") };
        request.Headers.Add("ingest-collection", collectionHeader);
        return await Client.SendAsync(request);
    }

    /// <summary>
    /// Sends one request with its target exactly as written (no client-side escaping or
    /// normalisation) over its own connection, and reads the answer.
    /// </summary>
    public async Task<RawHttpResponse> SendRawAsync(string method, string target, string? json = null, params string[] headerLines)
    {
        await using var connection = await RawHttpConnection.OpenAsync(Client.BaseAddress!);
        var body = json ?? string.Empty;
        await connection.SendAsync(
            $"{method} {target} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {Encoding.UTF8.GetByteCount(body)}\r\nConnection: close\r\n{string.Concat(headerLines.Select(h => h + "\r\n"))}\r\n");
        await connection.SendAsync(Encoding.UTF8.GetBytes(body));
        using var timeout = new CancellationTokenSource(TimeSpan.FromSeconds(30));
        return await connection.ReadResponseAsync(timeout.Token);
    }

    public async Task<JsonElement> GetJsonAsync(string path, HttpStatusCode expected = HttpStatusCode.OK)
    {
        using var response = await Client.GetAsync(Relative(path));
        return await ReadJsonAsync(response, expected);
    }

    public static async Task<JsonElement> ReadJsonAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(expected == response.StatusCode, $"expected {expected}, got {response.StatusCode}: {text}");
        Assert.Equal("application/json", response.Content.Headers.ContentType?.MediaType);
        using var document = JsonDocument.Parse(text);
        return document.RootElement.Clone();
    }

    /// <summary>Asserts an RFC 7807 problem with this status and returns its detail.</summary>
    public static async Task<string> ReadProblemAsync(HttpResponseMessage response, HttpStatusCode expected)
    {
        var text = await response.Content.ReadAsStringAsync();
        Assert.True(expected == response.StatusCode, $"expected {expected}, got {response.StatusCode}: {text}");
        Assert.Equal("application/problem+json", response.Content.Headers.ContentType?.MediaType);
        using var document = JsonDocument.Parse(text);
        var root = document.RootElement;
        Assert.Equal((int)expected, root.GetProperty("status").GetInt32());
        Assert.False(string.IsNullOrEmpty(root.GetProperty("title").GetString()));
        return root.GetProperty("detail").GetString() ?? string.Empty;
    }

    public async ValueTask DisposeAsync()
    {
        await Server.DisposeAsync();
        _dataDirectory.Dispose();
    }
}
