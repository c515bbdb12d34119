using System.Net;
using System.Text;
using System.Text.Json;

namespace Ingest.Console.Tests.Browser;

/// <summary>Setting up and checking documents over the HTTP API, behind the page's back.</summary>
internal static class ConsoleApi
{
    public static async Task PutAsync(this ConsoleSession session, string id, string collection, string json)
    {
        using var content = new StringContent(json, Encoding.UTF8, "application/json");
        using var response = await session.Api.PutAsync(new Uri($"/docs/{id}?collection={collection}", UriKind.Relative), content);
        Assert.True(response.IsSuccessStatusCode, $"PUT /docs/{id} answered {(int)response.StatusCode}: {await response.Content.ReadAsStringAsync()}");
    }

    /// <summary>The document's body and etag, or null when there is none.</summary>
    public static async Task<(JsonElement Body, string Etag)?> GetAsync(this ConsoleSession session, string id)
    {
        using var response = await session.Api.GetAsync(new Uri($"/docs/{id}", UriKind.Relative));
        if (response.StatusCode == HttpStatusCode.NotFound)
        {
            return null;
        }

        response.EnsureSuccessStatusCode();
        using var document = JsonDocument.Parse(await response.Content.ReadAsStringAsync());
        return (document.RootElement.Clone(), response.Headers.ETag!.Tag.Trim('"'));
    }
}
