using Ingest.Server.Brokers;

namespace Ingest.Server.Sources;

/// <summary>RabbitMQ queues read into the store (<c>Ingest:Sources:RabbitMq:N</c>).</summary>
public sealed class RabbitMqSourceOptions : SourceMappingOptions
{
    /// <summary>amqp://user:password@host:port/vhost, or amqps:// for TLS.</summary>
    public string? Uri { get; set; }

    /// <summary>TLS beyond the <c>amqps://</c> scheme: a private CA, the certificate's name.</summary>
    public RabbitMqTlsSettings? Tls { get; set; }

    public List<string> Queues { get; set; } = [];

    /// <summary>Unacknowledged messages the broker may send ahead; at least the batch size, so a batch can fill.</summary>
    public ushort Prefetch { get; set; } = 2_000;

    /// <summary>Declare each queue (durable, not exclusive, not auto-delete) if it does not exist.</summary>
    public bool DeclareQueues { get; set; } = true;

    protected override string Kind => "rabbitmq";

    internal override void Validate(string path, List<string> errors)
    {
        base.Validate(path, errors);
        RabbitMqEndpoint.Validate(Uri, Tls, path, errors);

        RequireNames(Queues, path, nameof(Queues), errors);
        if (Prefetch == 0)
        {
            errors.Add($"{path}:Prefetch must be > 0.");
        }
    }
}
