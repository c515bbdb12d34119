using Ingest.Server.Hosting.Http.Security;

namespace Ingest.Server.Tests.Hosting.Security;

/// <summary>
/// Every endpoint the server maps, with a request that reaches it and the scope it needs. A test fails
/// when the server maps an endpoint missing here, so each new endpoint is checked with every scope.
/// </summary>
internal static class ScopedEndpoints
{
    /// <summary>Scope <see cref="ApiScopes.None"/> marks the endpoints open without a key.</summary>
    public static readonly IReadOnlyList<(string Method, string Route, string Path, ApiScopes Scope)> All =
    [
        ("GET", "/alive", "/alive", ApiScopes.None),
        ("GET", "/metrics", "/metrics", ApiScopes.None),
        ("GET", "/", "/", ApiScopes.None),
        ("GET", "/console", "/console", ApiScopes.None),
        ("GET", "/console/{**file}", "/console/js/app.js", ApiScopes.None),
        ("GET", "/health", "/health", ApiScopes.Read),
        ("GET", "/stats", "/stats", ApiScopes.Read),
        ("GET", "/cluster", "/cluster", ApiScopes.Read),
        ("GET", "/docs", "/docs?collection=Orders", ApiScopes.Read),
        ("GET", "/docs/{**id}", "/docs/orders/1", ApiScopes.Read),
        ("PUT", "/docs/{**id}", "/docs/orders/1", ApiScopes.Write),
        ("DELETE", "/docs/{**id}", "/docs/orders/1", ApiScopes.Write),
        ("GET", "/dead-letters", "/dead-letters", ApiScopes.Read),
        ("GET", "/dead-letters/{id}", "/dead-letters/1", ApiScopes.Read),
        ("POST", "/dead-letters/{id}/replay", "/dead-letters/1/replay", ApiScopes.Write),
        ("DELETE", "/dead-letters/{id}", "/dead-letters/1", ApiScopes.Write),
        ("POST", "/sources/{name}/reset", "/sources/orders/reset", ApiScopes.Admin),
        ("GET", "/queries", "/queries?q=from%20Orders", ApiScopes.Read),
        ("POST", "/queries", "/queries", ApiScopes.Read),
        ("GET", "/queries/explain", "/queries/explain?q=from%20Orders", ApiScopes.Read),
        ("GET", "/indexes", "/indexes", ApiScopes.Read),
        ("GET", "/indexes/{**name}", "/indexes/Orders/ByTotal", ApiScopes.Read),
        ("PUT", "/indexes/{**name}", "/indexes/Orders/ByTotal", ApiScopes.Admin),
        ("DELETE", "/indexes/{**name}", "/indexes/Orders/ByTotal", ApiScopes.Admin),
        ("POST", "/indexes/{**name}", "/indexes/Orders/ByTotal", ApiScopes.Admin),
        ("GET", "/etl", "/etl", ApiScopes.Read),
        ("GET", "/etl/{name}", "/etl/orders-out", ApiScopes.Read),
        ("PUT", "/etl/{name}", "/etl/orders-out", ApiScopes.Admin),
        ("DELETE", "/etl/{name}", "/etl/orders-out", ApiScopes.Admin),
        ("POST", "/etl/{name}/reset", "/etl/orders-out/reset", ApiScopes.Admin),
        ("GET", "/etl/{name}/errors", "/etl/orders-out/errors", ApiScopes.Read),
        ("POST", "/etl/{name}/errors/{id}/retry", "/etl/orders-out/errors/1/retry", ApiScopes.Admin),
        ("GET", "/expiration", "/expiration", ApiScopes.Read),
        ("PUT", "/expiration/collections/{name}", "/expiration/collections/Orders", ApiScopes.Admin),
        ("DELETE", "/expiration/collections/{name}", "/expiration/collections/Orders", ApiScopes.Admin),
        ("GET", "/cluster/digest", "/cluster/digest?collection=Orders", ApiScopes.Read),
        ("GET", "/grafana/", "/grafana", ApiScopes.Read),
        ("POST", "/grafana/query", "/grafana/query", ApiScopes.Read),
        ("POST", "/grafana/variable", "/grafana/variable", ApiScopes.Read),
        ("POST", "/grafana/metrics", "/grafana/metrics", ApiScopes.Read),
        ("POST", "/grafana/metric-payload-options", "/grafana/metric-payload-options", ApiScopes.Read),
        ("POST", "/grafana/tag-keys", "/grafana/tag-keys", ApiScopes.Read),
        ("POST", "/grafana/tag-values", "/grafana/tag-values", ApiScopes.Read),
        ("GET", "/grafana/queries", "/grafana/queries", ApiScopes.Read),
        ("GET", "/grafana/queries/{name}", "/grafana/queries/q", ApiScopes.Read),
        ("PUT", "/grafana/queries/{name}", "/grafana/queries/q", ApiScopes.Admin),
        ("DELETE", "/grafana/queries/{name}", "/grafana/queries/q", ApiScopes.Admin),
        ("POST", "/admin/backup", "/admin/backup", ApiScopes.Admin),
        ("POST", "/admin/verify", "/admin/verify", ApiScopes.Admin),
    ];
}
