using System.Net;
using System.Net.Http.Headers;
using System.Text.Json;

namespace Ingest.Cli.Server;

/// <summary>
/// Calls a running server's HTTP API. Every way a call can fail becomes a <see cref="CommandFailedException"/> whose
/// message a user can act on: the server unreachable or silent, its certificate not trusted, the API key missing or
/// wrong, or the server's own problem (RFC 7807: its title and detail).
/// </summary>
internal sealed class IngestApiClient : IDisposable
{
    /// <summary>The header the server reads its API key from (see the server's ApiKeyMiddleware).</summary>
    public const string ApiKeyHeader = "X-Api-Key";

    private readonly HttpClient _http;
    private readonly Uri _root;
    private readonly string? _apiKey;
    private readonly TimeSpan _timeout;
    private readonly ServerTrust _trust;

    public IngestApiClient(Uri serverUrl, string? apiKey, TimeSpan timeout, ServerTrust trust)
    {
        ArgumentNullException.ThrowIfNull(serverUrl);
        ArgumentNullException.ThrowIfNull(trust);
        _root = serverUrl.AbsoluteUri.EndsWith('/') ? serverUrl : new Uri(serverUrl.AbsoluteUri + "/");
        _apiKey = apiKey;
        _timeout = timeout;
        _trust = trust;
        _http = trust.CreateHttpClient(timeout);
    }

    /// <summary>The address of <paramref name="relative"/> (no leading '/') under the server's URL, keeping any path prefix.</summary>
    public Uri AddressOf(string relative) => new(_root, relative);

    /// <summary>Sends the request and returns the body of a successful answer; throws for anything else.</summary>
    public async Task<byte[]> SendAsync(HttpMethod method, string relative, HttpContent? content, CancellationToken cancellationToken)
    {
        var url = AddressOf(relative);
        using var response = await SendCoreAsync(method, url, content, "application/json", HttpCompletionOption.ResponseContentRead, cancellationToken).ConfigureAwait(false);
        return await ReadAsync(url, () => response.Content.ReadAsByteArrayAsync(cancellationToken), cancellationToken).ConfigureAwait(false);
    }

    /// <summary>
    /// Sends the request and copies the body of a successful answer to <paramref name="destination"/> as it arrives
    /// (the timeout covers the wait for the answer to start, not the whole body). Returns the answer's headers.
    /// </summary>
    public async Task<HttpResponseHeaders> DownloadAsync(HttpMethod method, string relative, string accept, Stream destination, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(destination);
        var url = AddressOf(relative);
        using var response = await SendCoreAsync(method, url, null, accept, HttpCompletionOption.ResponseHeadersRead, cancellationToken).ConfigureAwait(false);
        await ReadAsync(
            url,
            async () =>
            {
                await response.Content.CopyToAsync(destination, cancellationToken).ConfigureAwait(false);
                return true;
            },
            cancellationToken).ConfigureAwait(false);
        return response.Headers;
    }

    public void Dispose() => _http.Dispose();

    /// <summary>The answer when it is a success (headers read at least); every failure as a <see cref="CommandFailedException"/>.</summary>
    private async Task<HttpResponseMessage> SendCoreAsync(HttpMethod method, Uri url, HttpContent? content, string accept, HttpCompletionOption completion, CancellationToken cancellationToken)
    {
        using var request = new HttpRequestMessage(method, url) { Content = content };
        request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue(accept));
        if (!string.IsNullOrEmpty(_apiKey))
        {
            request.Headers.Add(ApiKeyHeader, _apiKey);
        }

        var response = await ReadAsync(url, () => _http.SendAsync(request, completion, cancellationToken), cancellationToken).ConfigureAwait(false);
        if (response.IsSuccessStatusCode)
        {
            return response;
        }

        using (response)
        {
            if (response.StatusCode == HttpStatusCode.Unauthorized)
            {
                var hint = string.IsNullOrEmpty(_apiKey) ? $"pass --api-key or set {ServerOptions.ApiKeyVariable}" : "check the key";
                throw new CommandFailedException(ExitCodes.Failure, $"the server refused the request for want of the right API key (HTTP 401): {hint}");
            }

            var body = await ReadAsync(url, () => response.Content.ReadAsByteArrayAsync(cancellationToken), cancellationToken).ConfigureAwait(false);
            throw new CommandFailedException(ExitCodes.Failure, DescribeProblem(response.StatusCode, body));
        }
    }

    /// <summary>Runs one step of talking to the server, turning "unreachable", "cut off" and "silent" into messages.</summary>
    private async Task<T> ReadAsync<T>(Uri url, Func<Task<T>> step, CancellationToken cancellationToken)
    {
        try
        {
            return await step().ConfigureAwait(false);
        }
        catch (HttpRequestException ex)
        {
            throw new CommandFailedException(
                ExitCodes.Failure, _trust.Describe(ex, url) ?? $"cannot reach the server at {url.GetLeftPart(UriPartial.Path)}: {ex.Message}", ex);
        }
        catch (HttpIOException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"the answer from {url.GetLeftPart(UriPartial.Path)} was cut off: {ex.Message}", ex);
        }
        catch (TaskCanceledException ex) when (!cancellationToken.IsCancellationRequested)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"no answer from {url.GetLeftPart(UriPartial.Path)} within {_timeout.TotalSeconds:0.#} s (raise --timeout)", ex);
        }
    }

    /// <summary>A problem's title and detail (<c>Invalid query: line 1, col 22: ...</c>), or the status when the body is not one.</summary>
    internal static string DescribeProblem(HttpStatusCode status, byte[] body)
    {
        try
        {
            using var document = JsonDocument.Parse(body);
            var root = document.RootElement;
            if (root.ValueKind == JsonValueKind.Object)
            {
                var title = root.TryGetProperty("title", out var t) && t.ValueKind == JsonValueKind.String ? t.GetString() : null;
                var detail = root.TryGetProperty("detail", out var d) && d.ValueKind == JsonValueKind.String ? d.GetString() : null;
                if (title is not null || detail is not null)
                {
                    return $"{title ?? "Error"}{(detail is null ? string.Empty : ": " + detail)} (HTTP {(int)status})";
                }
            }
        }
        catch (JsonException)
        {
            // Not JSON: a proxy's page, say.
        }

        return $"the server answered HTTP {(int)status} {status}";
    }
}
