namespace Ingest.Server.Grafana;

/// <summary>A data source request Ingest cannot read (not the query text itself): a 400 whose message Grafana shows.</summary>
public sealed class GrafanaRequestException : Exception
{
    public GrafanaRequestException()
    {
    }

    public GrafanaRequestException(string message)
        : base(message)
    {
    }

    public GrafanaRequestException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
