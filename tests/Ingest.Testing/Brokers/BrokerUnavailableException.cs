namespace Ingest.Testing.Brokers;

/// <summary>No broker could be found or started; the message says how to provide one.</summary>
public sealed class BrokerUnavailableException : Exception
{
    public BrokerUnavailableException(string message)
        : base(message)
    {
    }

    public BrokerUnavailableException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    public BrokerUnavailableException()
    {
    }
}
