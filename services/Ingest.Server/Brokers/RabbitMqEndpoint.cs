using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using RabbitMQ.Client;
using RabbitMQ.Client.Exceptions;

namespace Ingest.Server.Brokers;

/// <summary>
/// The connection half of every RabbitMQ client the server opens, a source's consumer and an ETL
/// task's publisher alike: the <c>amqp://</c> or <c>amqps://</c> URI (TLS follows the scheme, with
/// <see cref="RabbitMqTlsSettings"/> for a private CA), how it is shown without its password, the
/// connection factory with the client's recovery mode, and connection failures in words a user acts on.
/// </summary>
internal static class RabbitMqEndpoint
{
    /// <summary>Names a missing or malformed URI or TLS setting under <paramref name="path"/> (the password is never shown).</summary>
    public static void Validate(string? uri, RabbitMqTlsSettings? tls, string path, List<string> errors)
    {
        Validate(uri, path, errors);
        tls?.Validate(uri, path, errors);
    }

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
    /// A connection factory for <paramref name="uri"/>, with TLS for <c>amqps://</c> (the server name checked against the host,
    /// or <see cref="RabbitMqTlsSettings.ServerName"/>; the chain against <see cref="RabbitMqTlsSettings.CaPath"/> when set).
    /// <paramref name="automaticRecovery"/>: the client reconnects and restores its consumers by itself (sources), or the
    /// caller reconnects after a failed operation and repeats it (ETL publishers, which must see every failure).
    /// </summary>
    public static ConnectionFactory CreateFactory(string uri, RabbitMqTlsSettings? tls, string clientName, bool automaticRecovery)
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
            factory.Ssl = new SslOption(tls?.ServerName ?? parsed.Host) { Enabled = true };
            if (tls?.CaPath is { } caPath)
            {
                // Read on every connect, so a replaced CA file takes effect without a restart.
                var authorities = LoadCertificates(caPath);
                factory.Ssl.CertificateValidationCallback = (_, certificate, _, errors) => TrustedBy(authorities, caPath, certificate, errors);
            }
        }

        return factory;
    }

    /// <summary>The certificates of a PEM file; none when it cannot be read or holds none.</summary>
    public static X509Certificate2Collection LoadCertificates(string path)
    {
        var certificates = new X509Certificate2Collection();
        try
        {
            certificates.ImportFromPemFile(path);
        }
        catch (Exception ex) when (ex is CryptographicException or IOException or UnauthorizedAccessException)
        {
            certificates.Clear();
        }

        return certificates;
    }

    /// <summary>
    /// A connection failure as /health and the log show it: what went wrong and which setting to look at.
    /// Never the password (the client's messages do not carry it; the URI is shown redacted).
    /// </summary>
    public static string DescribeFailure(Exception exception, string uri, RabbitMqTlsSettings? tls)
    {
        ArgumentNullException.ThrowIfNull(exception);
        for (var inner = exception; inner is not null; inner = inner.InnerException)
        {
            switch (inner)
            {
                case AuthenticationFailureException:
                    var user = Uri.TryCreate(uri, UriKind.Absolute, out var parsed) ? Uri.UnescapeDataString(parsed.UserInfo.Split(':')[0]) : string.Empty;
                    return $"authentication failed for user '{user}': RabbitMQ refused the user name or password in the URI ({inner.Message})";
                case AuthenticationException:
                    return tls?.CaPath is null
                        ? $"TLS handshake failed: {inner.Message} If a private CA signed the broker's certificate, set Tls:CaPath to that CA's PEM file."
                        : $"TLS handshake failed: {inner.Message}";
            }
        }

        return exception switch
        {
            BrokerUnreachableException { InnerException: { } cause } => $"broker unreachable: {cause.Message}",
            OperationInterruptedException { ShutdownReason: { } reason } => $"{reason.ReplyCode} {reason.ReplyText}",
            _ => exception.Message,
        };
    }

    // Thrown rather than returning false, so the handshake fails with the reason instead of "rejected by the callback".
    private static bool TrustedBy(X509Certificate2Collection authorities, string caPath, X509Certificate? certificate, SslPolicyErrors errors)
    {
        if (certificate is null || (errors & SslPolicyErrors.RemoteCertificateNotAvailable) != 0)
        {
            throw new AuthenticationException("The broker sent no certificate.");
        }

        if ((errors & SslPolicyErrors.RemoteCertificateNameMismatch) != 0)
        {
            throw new AuthenticationException(
                "The broker's certificate does not name the host connected to; set Tls:ServerName to a name the certificate carries.");
        }

        using var chain = new X509Chain();
        chain.ChainPolicy.TrustMode = X509ChainTrustMode.CustomRootTrust;
        chain.ChainPolicy.CustomTrustStore.AddRange(authorities);
        chain.ChainPolicy.RevocationMode = X509RevocationMode.NoCheck;
        using var presented = X509CertificateLoader.LoadCertificate(certificate.GetRawCertData());
        if (chain.Build(presented))
        {
            return true;
        }

        var status = string.Join(", ", chain.ChainStatus.Select(static s => s.Status.ToString()));
        throw new AuthenticationException(
            $"The broker's certificate ('{presented.Subject}', issued by '{presented.Issuer}') is not trusted: it does not chain to a CA in Tls:CaPath '{caPath}' ({status}).");
    }
}
