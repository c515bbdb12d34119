using System.Collections.Concurrent;
using System.Diagnostics.Metrics;
using Microsoft.Extensions.DependencyInjection;

namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>
/// What one server recorded about finished requests (ASP.NET Core's <c>http.server.request.duration</c>
/// and the exception handler's <c>aspnetcore.diagnostics.exceptions</c>), for requests whose client
/// cannot read the answer because it closed its side of the connection. Only this server's
/// meters are heard: instruments are matched by the server's own meter factory.
/// </summary>
internal sealed class RequestOutcomes : IDisposable
{
    private readonly MeterListener _listener = new();
    private readonly ConcurrentQueue<(string Route, int Status, string? Error)> _requests = new();
    private readonly ConcurrentQueue<string> _unhandled = new();

    public RequestOutcomes(IServiceProvider services)
    {
        var factory = services.GetRequiredService<IMeterFactory>();
        _listener.InstrumentPublished = (instrument, listener) =>
        {
            if (ReferenceEquals(instrument.Meter.Scope, factory)
                && instrument.Name is "http.server.request.duration" or "aspnetcore.diagnostics.exceptions")
            {
                listener.EnableMeasurementEvents(instrument);
            }
        };
        _listener.SetMeasurementEventCallback<double>((instrument, _, tags, _) => Record(instrument, tags));
        _listener.SetMeasurementEventCallback<long>((instrument, _, tags, _) => Record(instrument, tags));
        _listener.Start();
    }

    /// <summary>Exceptions that reached the exception handler (each would have been a 500).</summary>
    public IReadOnlyCollection<string> Unhandled => _unhandled;

    /// <summary>Waits for a finished request on <paramref name="route"/> and returns its status and error type.</summary>
    public async Task<(int Status, string? Error)> WaitForAsync(string route, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (DateTime.UtcNow < deadline)
        {
            foreach (var request in _requests)
            {
                if (request.Route == route)
                {
                    return (request.Status, request.Error);
                }
            }

            await Task.Delay(50);
        }

        throw new TimeoutException($"No request on {route} finished within {timeout}; seen: {string.Join(", ", _requests)}");
    }

    public void Dispose() => _listener.Dispose();

    private void Record(Instrument instrument, ReadOnlySpan<KeyValuePair<string, object?>> tags)
    {
        string? route = null, error = null;
        var status = 0;
        foreach (var tag in tags)
        {
            switch (tag.Key)
            {
                case "http.route":
                    route = tag.Value as string;
                    break;
                case "http.response.status_code":
                    status = Convert.ToInt32(tag.Value, System.Globalization.CultureInfo.InvariantCulture);
                    break;
                case "error.type":
                    error = tag.Value as string;
                    break;
            }
        }

        if (instrument.Name == "aspnetcore.diagnostics.exceptions")
        {
            _unhandled.Enqueue(error ?? "?");
        }
        else
        {
            _requests.Enqueue((route ?? "?", status, error));
        }
    }
}
