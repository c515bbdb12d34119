namespace Ingest.Server.Etl;

/// <summary>A transform failed, timed out, ran out of memory or returned something that is not a message, for one document.</summary>
public sealed class EtlScriptException : Exception
{
    public EtlScriptException()
    {
    }

    public EtlScriptException(string message)
        : base(message)
    {
    }

    public EtlScriptException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
