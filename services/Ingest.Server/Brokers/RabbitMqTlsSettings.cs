namespace Ingest.Server.Brokers;

/// <summary>
/// TLS to RabbitMQ beyond what an <c>amqps://</c> URI turns on by itself (<c>...:RabbitMq...:Tls</c>):
/// a private CA to trust instead of the system's store, and the name the broker's certificate must carry.
/// </summary>
public sealed class RabbitMqTlsSettings
{
    /// <summary>
    /// A PEM file with the CA certificate(s) that signed the broker's certificate; the broker is then
    /// trusted only if its chain ends at one of them. Null: the system's CA store decides.
    /// </summary>
    public string? CaPath { get; set; }

    /// <summary>The name the broker's certificate must carry; null: the URI's host.</summary>
    public string? ServerName { get; set; }

    internal void Validate(string? uri, string path, List<string> errors)
    {
        if (uri is not null && Uri.TryCreate(uri, UriKind.Absolute, out var parsed) && parsed.Scheme != "amqps")
        {
            errors.Add($"{path}:Tls applies to amqps:// URIs only; use amqps:// in {path}:Uri (usually port 5671) or remove {path}:Tls.");
        }

        if (CaPath is not null)
        {
            if (!File.Exists(CaPath))
            {
                errors.Add($"{path}:Tls:CaPath '{CaPath}' does not exist (a PEM file with the CA certificate that signed the broker's).");
            }
            else if (RabbitMqEndpoint.LoadCertificates(CaPath) is { Count: 0 })
            {
                errors.Add($"{path}:Tls:CaPath '{CaPath}' holds no PEM certificate (-----BEGIN CERTIFICATE-----).");
            }
        }

        if (ServerName is { Length: 0 })
        {
            errors.Add($"{path}:Tls:ServerName must not be empty (leave it out to check the URI's host).");
        }
    }
}
