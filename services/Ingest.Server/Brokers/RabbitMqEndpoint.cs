using RabbitMQ.Client;

namespace Ingest.Server.Brokers;

/// <summary>
/// The connection half of every RabbitMQ client the server opens, a source's consumer and an ETL
/// task's publisher alike: the <c>amqp://</c> or <c>amqps://</c> URI (TLS follows the scheme),
/// how it is shown without its password, and the connection factory with the client's recovery mode.
/// </summary>
internal static class RabbitMqEndpoint
{
    /// <summary>Names a missing or malformed URI under <paramref name="path"/> (the password is never shown).</summary>
    public static void Validate(string? uri, string path, List<string> errors)
    {
        ArgumentNullException.ThrowIfNull(errors);
        if (string.IsNullOrWhiteSpace(uri))
        {
            errors.Add($"{path}:Uri is required.");
            return;
        }

        if (!Uri.TryCreate(uri, UriKind.Absolute, out var parsed) || parsed.Scheme is not ("amqp" or "amqps"))
        {
            errors.Add($"{path}:Uri must be an amqp:// or amqps:// URI (was '{Redact(uri)}').");
        }
    }

    /// <summary>The URI's user and password (null without one), percent-decoded; the password may contain ':'.</summary>
    public static (string User, string? Password) SplitUserInfo(string uri)
    {
        if (!Uri.TryCreate(uri, UriKind.Absolute, out var parsed) || parsed.UserInfo.Length == 0)
        {
            return ("", null);
        }

        var colon = parsed.UserInfo.IndexOf(':', StringComparison.Ordinal);
        return colon < 0
            ? (Uri.UnescapeDataString(parsed.UserInfo), null)
            : (Uri.UnescapeDataString(parsed.UserInfo[..colon]), Uri.UnescapeDataString(parsed.UserInfo[(colon + 1)..]));
    }

    /// <summary>The URI without its password, for messages, logs and /stats.</summary>
    public static string Redact(string uri)
    {
        if (Uri.TryCreate(uri, UriKind.Absolute, out var parsed) && parsed.UserInfo.Contains(':', StringComparison.Ordinal))
        {
            var user = parsed.UserInfo[..parsed.UserInfo.IndexOf(':', StringComparison.Ordinal)];
            return new UriBuilder(parsed) { UserName = user, Password = "***" }.Uri.ToString();
        }

        return uri;
    }

    /// <summary>
    /// A connection factory for <paramref name="uri"/>, with TLS for <c>amqps://</c> (the server name checked against the host).
    /// <paramref name="automaticRecovery"/>: the client reconnects and restores its consumers by itself (sources), or the
    /// caller reconnects after a failed operation and repeats it (ETL publishers, which must see every failure).
    /// </summary>
    public static ConnectionFactory CreateFactory(string uri, string clientName, bool automaticRecovery)
    {
        var parsed = new Uri(uri);
        var factory = new ConnectionFactory
        {
            Uri = parsed,
            AutomaticRecoveryEnabled = automaticRecovery,
            TopologyRecoveryEnabled = automaticRecovery,
            ClientProvidedName = $"{clientName}@{Environment.MachineName}",
        };
        if (automaticRecovery)
        {
            factory.NetworkRecoveryInterval = TimeSpan.FromSeconds(2);
        }

        if (parsed.Scheme == "amqps")
        {
            factory.Ssl = new SslOption(parsed.Host) { Enabled = true };
        }

        return factory;
    }
}
