using System.Text.Json;

namespace Ingest.Server.Grafana;

/// <summary>
/// A Grafana answer written as JSON straight to the response body (Kestrel's pooled pipe), then flushed once: a
/// panel's answer of thousands of points is not written to a growing buffer first and copied to an array, which for
/// answers over 85 KB were large object heap allocations (and gen2 collections). Disposes what the answer is read
/// from (the panels' <see cref="Queries.ResultTable"/>s) once it is written, or when it fails.
/// </summary>
internal sealed class GrafanaJsonResult : IResult
{
    private readonly Action<Utf8JsonWriter> _write;
    private readonly IReadOnlyList<IDisposable> _owned;

    public GrafanaJsonResult(Action<Utf8JsonWriter> write, IReadOnlyList<IDisposable> owned)
    {
        _write = write;
        _owned = owned;
    }

    public async Task ExecuteAsync(HttpContext httpContext)
    {
        ArgumentNullException.ThrowIfNull(httpContext);
        try
        {
            httpContext.Response.ContentType = "application/json";
            var body = httpContext.Response.BodyWriter;
            using (var writer = new Utf8JsonWriter(body))
            {
                _write(writer);
            }

            await body.FlushAsync(httpContext.RequestAborted).ConfigureAwait(false);
        }
        finally
        {
            foreach (var owned in _owned)
            {
                owned.Dispose();
            }
        }
    }
}
