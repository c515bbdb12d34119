using Ingest.Server.Brokers;

namespace Ingest.Server.Etl;

/// <summary>
/// Where an ETL task publishes on RabbitMQ (its settings; <see cref="RabbitMqEtlDestination"/> publishes):
/// an exchange (which must exist) and a routing key, fixed or read from each document.
/// </summary>
public sealed class EtlRabbitMqSettings
{
    /// <summary>amqp://user:password@host:port/vhost, or amqps:// for TLS.</summary>
    public string? Uri { get; set; }

    /// <summary>TLS beyond the <c>amqps://</c> scheme: a private CA, the certificate's name.</summary>
    public RabbitMqTlsSettings? Tls { get; set; }

    /// <summary>The exchange to publish to; the empty string is the default exchange (routing key = queue name).</summary>
    public string? Exchange { get; set; }

    /// <summary>
    /// The routing key; with <see cref="RoutingKeyPath"/>, the one used for deletes (whose body is gone)
    /// and for documents without that property.
    /// </summary>
    public string RoutingKey { get; set; } = string.Empty;

    /// <summary>Dot-separated properties of the document (<c>Customer.Region</c>) whose value is the routing key.</summary>
    public string? RoutingKeyPath { get; set; }

    internal void Validate(string path, List<string> errors)
    {
        RabbitMqEndpoint.Validate(Uri, Tls, path, errors);

        if (Exchange is null)
        {
            errors.Add($"{path}:Exchange is required (the empty string is the default exchange).");
        }
        else if (Exchange.Length > 255)
        {
            errors.Add($"{path}:Exchange must be at most 255 characters.");
        }

        if (RoutingKey is null || RoutingKey.Length > 255)
        {
            errors.Add($"{path}:RoutingKey must be at most 255 characters.");
        }

        if (RoutingKeyPath is not null && !DocumentPropertyPath.IsValid(RoutingKeyPath))
        {
            errors.Add($"{path}:RoutingKeyPath '{RoutingKeyPath}' must be property names separated by dots, e.g. Customer.Region.");
        }
    }
}
