namespace Ingest.Testing.Brokers;

/// <summary>
/// The TLS and SASL listeners of the test brokers, from the variables <c>infra/scripts/brokers.sh up --secure</c>
/// exports (and <c>.ci/run</c> sets). A missing variable fails the test with a message saying how to provide it.
/// </summary>
/// <param name="KafkaSaslSsl">host:port of Kafka's SASL_SSL listener (SCRAM-SHA-256).</param>
/// <param name="KafkaSsl">host:port of Kafka's SSL listener (TLS only).</param>
/// <param name="ScramUser">The SCRAM user.</param>
/// <param name="ScramPassword">Its password.</param>
/// <param name="RabbitMqTls">The <c>amqps://</c> URI of RabbitMQ's TLS listener.</param>
/// <param name="CaPath">The PEM file of the CA that signed both brokers' certificates.</param>
public sealed record SecureBrokers(string KafkaSaslSsl, string KafkaSsl, string ScramUser, string ScramPassword, Uri RabbitMqTls, string CaPath)
{
    public const string KafkaSaslSslVariable = "INGEST_TEST_KAFKA_SASL_SSL";
    public const string KafkaSslVariable = "INGEST_TEST_KAFKA_SSL";
    public const string ScramUserVariable = "INGEST_TEST_KAFKA_SCRAM_USER";
    public const string ScramPasswordVariable = "INGEST_TEST_KAFKA_SCRAM_PASSWORD";
    public const string RabbitMqTlsVariable = "INGEST_TEST_RABBITMQ_TLS";
    public const string CaVariable = "INGEST_TEST_BROKER_CA";

    /// <summary>The listeners from the environment.</summary>
    /// <exception cref="BrokerUnavailableException">A variable is missing or malformed; the message says how to provide them.</exception>
    public static SecureBrokers FromEnvironment() => From(Environment.GetEnvironmentVariable);

    /// <summary>The listeners from <paramref name="readVariable"/> (for tests of this fixture).</summary>
    public static SecureBrokers From(Func<string, string?> readVariable)
    {
        ArgumentNullException.ThrowIfNull(readVariable);
        string[] names = [KafkaSaslSslVariable, KafkaSslVariable, ScramUserVariable, ScramPasswordVariable, RabbitMqTlsVariable, CaVariable];
        var missing = names.Where(n => string.IsNullOrWhiteSpace(readVariable(n))).ToList();
        if (missing.Count > 0)
        {
            throw new BrokerUnavailableException(
                $"The broker TLS/SASL tests need the brokers' secure listeners, and {string.Join(", ", missing)} " +
                $"{(missing.Count == 1 ? "is" : "are")} not set. Start the test brokers in secure mode and export what it prints: " +
                "`KAFKA_HOME=/path/to/kafka eval \"$(infra/scripts/brokers.sh up --secure)\"` (a broker already running without them " +
                "needs `infra/scripts/brokers.sh down` first; .ci/run does this by itself).");
        }

        var ca = readVariable(CaVariable)!.Trim();
        if (!File.Exists(ca))
        {
            throw new BrokerUnavailableException($"{CaVariable}='{ca}' does not exist; run `infra/scripts/brokers.sh up --secure` again.");
        }

        var rabbit = readVariable(RabbitMqTlsVariable)!.Trim();
        if (!Uri.TryCreate(rabbit, UriKind.Absolute, out var rabbitUri) || rabbitUri.Scheme != "amqps")
        {
            throw new BrokerUnavailableException($"{RabbitMqTlsVariable} is not an amqps:// URI.");
        }

        return new SecureBrokers(
            readVariable(KafkaSaslSslVariable)!.Trim(), readVariable(KafkaSslVariable)!.Trim(), readVariable(ScramUserVariable)!.Trim(),
            readVariable(ScramPasswordVariable)!.Trim(), rabbitUri, ca);
    }

    /// <summary>librdkafka settings for the SASL_SSL listener as <paramref name="password"/> (default: the right one).</summary>
    public Dictionary<string, string> KafkaSaslSettings(string? password = null) => new()
    {
        ["security.protocol"] = "SASL_SSL",
        ["sasl.mechanism"] = "SCRAM-SHA-256",
        ["sasl.username"] = ScramUser,
        ["sasl.password"] = password ?? ScramPassword,
        ["ssl.ca.location"] = CaPath,
    };

    /// <summary>A redacted form for failure messages: the password never appears in test output either.</summary>
    public override string ToString() => $"SecureBrokers {{ KafkaSaslSsl = {KafkaSaslSsl}, KafkaSsl = {KafkaSsl}, ScramUser = {ScramUser}, RabbitMqTls = {RabbitMqTls.Host}:{RabbitMqTls.Port}, CaPath = {CaPath} }}";
}
