namespace Ingest.Server.Brokers;

/// <summary>
/// Secrets kept in configuration (<c>Ingest:Secrets:NAME</c>, typically from the environment or a secret
/// store) and referred to as <c>secret:NAME</c> by what is stored in the data directory: an ETL task defined
/// over HTTP names its broker password this way, so neither the data directory nor its backups hold it.
/// A reference is resolved only when the client is built, and never shown.
/// </summary>
public sealed class ConfiguredSecrets
{
    public const string SectionName = "Ingest:Secrets";
    public const string ReferencePrefix = "secret:";

    private readonly Dictionary<string, string> _values;

    public ConfiguredSecrets(IReadOnlyDictionary<string, string> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        _values = new Dictionary<string, string>(values, StringComparer.Ordinal);
    }

    public static ConfiguredSecrets None { get; } = new(new Dictionary<string, string>());

    public static ConfiguredSecrets From(IConfiguration configuration)
    {
        ArgumentNullException.ThrowIfNull(configuration);
        var values = new Dictionary<string, string>(StringComparer.Ordinal);
        foreach (var child in configuration.GetSection(SectionName).GetChildren())
        {
            if (!string.IsNullOrEmpty(child.Value))
            {
                values[child.Key] = child.Value;
            }
        }

        return new ConfiguredSecrets(values);
    }

    /// <summary>Whether <paramref name="value"/> is a <c>secret:NAME</c> reference, and the name.</summary>
    public static bool IsReference(string? value, out string name)
    {
        if (value is not null && value.StartsWith(ReferencePrefix, StringComparison.Ordinal) && value.Length > ReferencePrefix.Length)
        {
            name = value[ReferencePrefix.Length..];
            return true;
        }

        name = "";
        return false;
    }

    /// <summary>The value, with a reference replaced by the secret it names.</summary>
    /// <exception cref="InvalidOperationException">The reference names no configured secret (the message names the setting to add).</exception>
    public string Resolve(string value)
    {
        if (!IsReference(value, out var name))
        {
            return value;
        }

        return _values.TryGetValue(name, out var secret)
            ? secret
            : throw new InvalidOperationException($"'{value}' names no configured secret: set {SectionName}:{name} (e.g. the environment variable Ingest__Secrets__{name}).");
    }

    /// <summary>Kafka settings with every reference resolved.</summary>
    public Dictionary<string, string> Resolve(IReadOnlyDictionary<string, string> settings)
    {
        ArgumentNullException.ThrowIfNull(settings);
        var resolved = new Dictionary<string, string>(settings.Count, StringComparer.Ordinal);
        foreach (var (key, value) in settings)
        {
            resolved[key] = Resolve(value);
        }

        return resolved;
    }

    /// <summary>An <c>amqp://user:secret:NAME@host/</c> URI with the password resolved.</summary>
    public string ResolveUri(string uri)
    {
        ArgumentNullException.ThrowIfNull(uri);
        var (user, password) = RabbitMqEndpoint.SplitUserInfo(uri);
        if (password is null || !IsReference(password, out _))
        {
            return uri;
        }

        return new UriBuilder(new Uri(uri)) { UserName = Uri.EscapeDataString(user), Password = Uri.EscapeDataString(Resolve(password)) }.Uri.ToString();
    }

    /// <summary>
    /// Names every secret in settings that will be stored in the data directory (an ETL task defined over HTTP)
    /// that is given as a value rather than a reference, and every reference to a secret not configured.
    /// </summary>
    public void ValidateStored(IReadOnlyDictionary<string, string>? kafkaSettings, string? rabbitMqUri, string path, List<string> errors)
    {
        ArgumentNullException.ThrowIfNull(errors);
        foreach (var (key, value) in kafkaSettings ?? new Dictionary<string, string>())
        {
            Check(value, KafkaClientSettings.IsSecret(key), $"{path}:Kafka:Settings:{key}", errors);
        }

        if (rabbitMqUri is not null)
        {
            var (_, password) = RabbitMqEndpoint.SplitUserInfo(rabbitMqUri);
            if (password is not null)
            {
                Check(password, true, $"{path}:RabbitMq:Uri's password", errors);
            }
        }
    }

    private void Check(string value, bool isSecret, string setting, List<string> errors)
    {
        if (IsReference(value, out var name))
        {
            if (!_values.ContainsKey(name))
            {
                errors.Add($"{setting} refers to {ReferencePrefix}{name}, but {SectionName}:{name} is not configured.");
            }
        }
        else if (isSecret)
        {
            errors.Add($"{setting} must be a reference, not the secret itself: a task defined over HTTP is stored in the data directory and its backups. "
                + $"Configure the secret as {SectionName}:NAME (e.g. the environment variable Ingest__Secrets__NAME) and give {ReferencePrefix}NAME here.");
        }
    }
}
