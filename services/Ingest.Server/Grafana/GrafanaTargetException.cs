using Ingest.Query;
using Ingest.Query.Syntax;

namespace Ingest.Server.Grafana;

/// <summary>
/// A target (or variable) whose query failed, with what the panel should show: the <see cref="Exception.InnerException"/>
/// is the engine's <see cref="QueryException"/> or <see cref="QueryUnavailableException"/>, the message names the target
/// and, for a mistake, where in the saved query, builder payload or ad hoc filter it is.
/// </summary>
public sealed class GrafanaTargetException : Exception
{
    public GrafanaTargetException(string message, string refId, Exception innerException)
        : base(message, innerException)
    {
        RefId = refId;
    }

    public GrafanaTargetException()
    {
        RefId = string.Empty;
    }

    public GrafanaTargetException(string message)
        : base(message)
    {
        RefId = string.Empty;
    }

    public GrafanaTargetException(string message, Exception innerException)
        : base(message, innerException)
    {
        RefId = string.Empty;
    }

    /// <summary>The target's <c>refId</c>, or <c>variable</c>.</summary>
    public string RefId { get; }
}
