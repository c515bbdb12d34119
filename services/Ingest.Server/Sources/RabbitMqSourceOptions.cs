namespace Ingest.Server.Sources;

/// <summary>RabbitMQ queues read into the store (<c>Ingest:Sources:RabbitMq:N</c>).</summary>
public sealed class RabbitMqSourceOptions : SourceMappingOptions
{
    /// <summary>amqp://user:password@host:port/vhost, or amqps:// for TLS.</summary>
    public string? Uri { get; set; }

    public List<string> Queues { get; set; } = [];

    /// <summary>Unacknowledged messages the broker may send ahead; at least the batch size, so a batch can fill.</summary>
    public ushort Prefetch { get; set; } = 2_000;

    /// <summary>Declare each queue (durable, not exclusive, not auto-delete) if it does not exist.</summary>
    public bool DeclareQueues { get; set; } = true;

    protected override string Kind => "rabbitmq";

    internal override void Validate(string path, List<string> errors)
    {
        base.Validate(path, errors);
        Require(Uri, path, nameof(Uri), errors);
        if (!string.IsNullOrWhiteSpace(Uri)
            && (!System.Uri.TryCreate(Uri, UriKind.Absolute, out var parsed) || parsed.Scheme is not ("amqp" or "amqps")))
        {
            errors.Add($"{path}:Uri must be an amqp:// or amqps:// URI (was '{Redact(Uri)}').");
        }

        RequireNames(Queues, path, nameof(Queues), errors);
        if (Prefetch == 0)
        {
            errors.Add($"{path}:Prefetch must be > 0.");
        }
    }

    /// <summary>The URI without its password, for messages and /stats.</summary>
    public static string Redact(string uri)
    {
        if (System.Uri.TryCreate(uri, UriKind.Absolute, out var parsed) && parsed.UserInfo.Contains(':', StringComparison.Ordinal))
        {
            var user = parsed.UserInfo[..parsed.UserInfo.IndexOf(':', StringComparison.Ordinal)];
            return new UriBuilder(parsed) { UserName = user, Password = "***" }.Uri.ToString();
        }

        return uri;
    }
}
