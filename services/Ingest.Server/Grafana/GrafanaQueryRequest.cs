namespace Ingest.Server.Grafana;

/// <summary>
/// What Ingest uses of the plugin's <c>POST /query</c> body: the panel's time range, Grafana's interval, the maximum
/// number of points, the visible targets and the ad hoc filters (<c>filters</c>, or <c>adhocFilters</c> from plugin
/// versions before 0.6.4). Everything else Grafana sends (panelId, scopedVars, requestId...) is ignored.
/// </summary>
internal sealed record GrafanaQueryRequest(
    DateTimeOffset From,
    DateTimeOffset To,
    long IntervalMs,
    int MaxDataPoints,
    IReadOnlyList<GrafanaTarget> Targets,
    IReadOnlyList<GrafanaAdHocFilter> Filters);
