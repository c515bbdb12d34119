namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// Endpoint metadata: no key needed. Only <c>/alive</c> (probes send no custom headers) and <c>/metrics</c>
/// (Prometheus scrapes without them; the figures reveal no document) carry it, and the console's static files
/// (they hold no data; the page asks for the key and sends it with each API call).
/// </summary>
public sealed record OpenEndpoint;
