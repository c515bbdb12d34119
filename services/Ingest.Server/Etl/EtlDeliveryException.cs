namespace Ingest.Server.Etl;

/// <summary>The destination did not acknowledge a message (broker down, refused, unroutable).</summary>
public sealed class EtlDeliveryException : Exception
{
    public EtlDeliveryException()
    {
    }

    public EtlDeliveryException(string message)
        : base(message)
    {
    }

    public EtlDeliveryException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
