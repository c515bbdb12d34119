using Confluent.Kafka;

namespace Ingest.Server.Brokers;

/// <summary>
/// The connection half of every Kafka client the server builds, a source's consumer and an ETL
/// task's producer alike: the bootstrap servers and the user's librdkafka settings, passed through
/// as given (TLS, SASL, timeouts...), except those the client's guarantees rest on.
/// </summary>
internal static class KafkaClientSettings
{
    /// <summary>
    /// Names every problem under <paramref name="path"/>: no bootstrap servers, or a reserved
    /// setting (matched case-insensitively), whose error says <paramref name="reservedBecause"/>.
    /// </summary>
    public static void Validate(
        string? bootstrapServers, IReadOnlyDictionary<string, string> settings, IReadOnlyList<string> reserved, string path, string reservedBecause,
        List<string> errors)
    {
        ArgumentNullException.ThrowIfNull(settings);
        ArgumentNullException.ThrowIfNull(reserved);
        ArgumentNullException.ThrowIfNull(errors);
        if (string.IsNullOrWhiteSpace(bootstrapServers))
        {
            errors.Add($"{path}:BootstrapServers is required.");
        }

        foreach (var key in settings.Keys)
        {
            if (reserved.Contains(key, StringComparer.OrdinalIgnoreCase))
            {
                errors.Add($"{path}:Settings:{key} cannot be set: {reservedBecause}");
            }
        }
    }

    /// <summary>
    /// Applies the user's settings over the client's defaults already in <paramref name="config"/>,
    /// then the bootstrap servers; the caller sets what it owns afterwards, so that always wins.
    /// </summary>
    public static TConfig Apply<TConfig>(TConfig config, string bootstrapServers, IReadOnlyDictionary<string, string> settings)
        where TConfig : ClientConfig
    {
        ArgumentNullException.ThrowIfNull(config);
        ArgumentNullException.ThrowIfNull(settings);
        foreach (var (key, value) in settings)
        {
            config.Set(key, value);
        }

        config.BootstrapServers = bootstrapServers;
        return config;
    }

    /// <summary>
    /// The settings for display: values of secret settings hidden (<c>sasl.password</c>, <c>ssl.key.password</c>,
    /// <c>sasl.oauthbearer.client.secret</c>, an inline private key in <c>ssl.key.pem</c>, <c>sasl.oauthbearer.config</c>...).
    /// </summary>
    public static Dictionary<string, string> Redact(IReadOnlyDictionary<string, string> settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        return settings.ToDictionary(static s => s.Key, static s => IsSecret(s.Key) && !ConfiguredSecrets.IsReference(s.Value, out _) ? "***" : s.Value);
    }

    /// <summary>Whether a librdkafka setting's value is a secret (a password, a private key, a token's configuration).</summary>
    public static bool IsSecret(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        return key.Contains("password", StringComparison.OrdinalIgnoreCase)
            || key.Contains("secret", StringComparison.OrdinalIgnoreCase)
            || key.Contains("key.pem", StringComparison.OrdinalIgnoreCase)
            || key.Contains("oauthbearer.config", StringComparison.OrdinalIgnoreCase);
    }
}
