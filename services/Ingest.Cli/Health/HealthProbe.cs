using System.Net.Http.Headers;
using System.Text.Json;

namespace Ingest.Cli.Health;

/// <summary>Asks a running Ingest server how it is, over its <c>/health</c> endpoint.</summary>
internal sealed class HealthProbe
{
    /// <summary>The header the server reads its API key from (see the server's ApiKeyMiddleware).</summary>
    public const string ApiKeyHeader = "X-Api-Key";

    private readonly HttpClient _http;

    public HealthProbe(HttpClient http)
    {
        ArgumentNullException.ThrowIfNull(http);
        _http = http;
    }

    /// <summary>
    /// Returns whatever the server answered; throws <see cref="HttpRequestException"/> when it cannot be
    /// reached and <see cref="TaskCanceledException"/> when it does not answer in the client's timeout.
    /// </summary>
    public async Task<HealthReport> CheckAsync(Uri serverUrl, string? apiKey, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(serverUrl);

        using var request = new HttpRequestMessage(HttpMethod.Get, HealthUrl(serverUrl));
        request.Headers.Accept.Add(new MediaTypeWithQualityHeaderValue("application/json"));
        if (!string.IsNullOrEmpty(apiKey))
        {
            request.Headers.Add(ApiKeyHeader, apiKey);
        }

        using var response = await _http.SendAsync(request, cancellationToken).ConfigureAwait(false);
        var body = await response.Content.ReadAsByteArrayAsync(cancellationToken).ConfigureAwait(false);
        var (status, details) = ParseBody(body);
        return new HealthReport(response.StatusCode, status, details);
    }

    /// <summary><c>/health</c> under the server's URL, keeping any path prefix (a reverse proxy's, say).</summary>
    public static Uri HealthUrl(Uri serverUrl)
    {
        ArgumentNullException.ThrowIfNull(serverUrl);
        var root = serverUrl.AbsoluteUri.EndsWith('/') ? serverUrl : new Uri(serverUrl.AbsoluteUri + "/");
        return new Uri(root, "health");
    }

    private static (string? Status, IReadOnlyList<KeyValuePair<string, string>> Details) ParseBody(byte[] body)
    {
        // The server answers {"status": "...", ...}; anything else (a proxy's error page, say) has no status.
        JsonDocument document;
        try
        {
            document = JsonDocument.Parse(body);
        }
        catch (JsonException)
        {
            return (null, []);
        }

        using (document)
        {
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                return (null, []);
            }

            string? status = null;
            var details = new List<KeyValuePair<string, string>>();
            foreach (var property in document.RootElement.EnumerateObject())
            {
                if (status is null && property.NameEquals("status") && property.Value.ValueKind == JsonValueKind.String)
                {
                    status = property.Value.GetString();
                }
                else
                {
                    var text = property.Value.ValueKind == JsonValueKind.String ? property.Value.GetString()! : property.Value.GetRawText();
                    details.Add(new(property.Name, text));
                }
            }

            return (status, details);
        }
    }
}
