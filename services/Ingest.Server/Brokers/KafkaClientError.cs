using Confluent.Kafka;

namespace Ingest.Server.Brokers;

/// <summary>
/// A Kafka client's error in words a user acts on. Authentication and TLS failures name the user and
/// the setting to fix, since librdkafka's own text ("SASL authentication error: ...", "SSL handshake
/// failed: ...") does not say which of our settings it comes from. Never a password: librdkafka does not
/// put one in its messages, and only the user name and the CA path are read from the settings here.
/// </summary>
internal static class KafkaClientError
{
    /// <summary>
    /// Whether <paramref name="code"/> is a refused login or a failed TLS handshake: a problem of the
    /// settings, which retrying does not cure and which a later "all brokers are down" must not hide.
    /// </summary>
    public static bool IsCredentialError(ErrorCode code) =>
        code is ErrorCode.Local_Authentication or ErrorCode.SaslAuthenticationFailed or ErrorCode.Local_Ssl;

    /// <summary>librdkafka's error <paramref name="reason"/> for <paramref name="code"/>, with what to check for credential errors.</summary>
    public static string Describe(ErrorCode code, string reason, IReadOnlyDictionary<string, string> settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        if (code is ErrorCode.Local_Authentication or ErrorCode.SaslAuthenticationFailed)
        {
            var user = Setting(settings, "sasl.username") ?? "(none: sasl.username is not set)";
            var mechanism = Setting(settings, "sasl.mechanism") ?? Setting(settings, "sasl.mechanisms") ?? "GSSAPI";
            return $"authentication failed for user '{user}' (SASL {mechanism}): the broker refused the user name or password; " +
                $"check sasl.username and sasl.password. librdkafka: {reason}";
        }

        if (code == ErrorCode.Local_Ssl)
        {
            var ca = Setting(settings, "ssl.ca.location") is { } path ? $"ssl.ca.location is '{path}'" : "ssl.ca.location is not set: the system's CA store decides";
            return reason.Contains("certificate verify failed", StringComparison.OrdinalIgnoreCase)
                ? $"the broker's certificate is not trusted: set ssl.ca.location to the PEM file of the CA that signed it ({ca}). librdkafka: {reason}"
                : $"TLS with the broker failed ({ca}). librdkafka: {reason}";
        }

        return reason;
    }

    private static string? Setting(IReadOnlyDictionary<string, string> settings, string name)
    {
        foreach (var (key, value) in settings)
        {
            if (string.Equals(key, name, StringComparison.OrdinalIgnoreCase))
            {
                return value;
            }
        }

        return null;
    }
}
