namespace Ingest.Server.Grafana;

/// <summary>An ad hoc filter as Grafana sends it (<c>{"key": "Status", "operator": "=", "value": "shipped"}</c>).</summary>
internal sealed record GrafanaAdHocFilter(string Key, string Operator, string Value);
