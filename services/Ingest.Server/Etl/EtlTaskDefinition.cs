using System.Text.Json.Serialization;
using Ingest.Server.Brokers;
using Ingest.Server.Scripting;

namespace Ingest.Server.Etl;

/// <summary>
/// An ETL task: which collections' changes to send, where (exactly one of <see cref="Kafka"/> and
/// <see cref="RabbitMq"/>), and an optional JavaScript transform. Bound from <c>Ingest:Etl:N</c> or
/// given as the body of <c>PUT /etl/{name}</c>.
/// </summary>
public sealed class EtlTaskDefinition
{
    public const int MaxNameLength = 64;

    /// <summary>Letters, digits, '.', '_' and '-'; it names the task's consumer (<c>etl/{name}</c>) and its error file.</summary>
    public string? Name { get; set; }

    /// <summary>Collections whose changes are sent (case-insensitive); <c>*</c> sends every collection.</summary>
    public List<string> Collections { get; set; } = [];

    public EtlKafkaSettings? Kafka { get; set; }

    public EtlRabbitMqSettings? RabbitMq { get; set; }

    /// <summary>JavaScript defining <c>function transform(document, metadata)</c>; see docs/etl.md.</summary>
    public string? Script { get; set; }

    /// <summary>The longest a script may run for one document.</summary>
    public int ScriptTimeoutMs { get; set; } = 1_000;

    /// <summary>The most a script may allocate for one document.</summary>
    public long ScriptMemoryBytes { get; set; } = 64L * 1024 * 1024;

    /// <summary>The CloudEvents <c>source</c> prefix; the collection is appended. Defaults to <c>/ingest/{machine name}</c>.</summary>
    public string? Source { get; set; }

    /// <summary>Where the definition came from: configuration tasks cannot be replaced or deleted over HTTP.</summary>
    [JsonIgnore]
    public bool FromConfiguration { get; set; }

    [JsonIgnore]
    public string EffectiveSource => string.IsNullOrWhiteSpace(Source) ? $"/ingest/{Environment.MachineName.ToLowerInvariant()}" : Source;

    public static bool IsValidName(string? name) =>
        name is { Length: > 0 and <= MaxNameLength } && name.All(static c => char.IsAsciiLetterOrDigit(c) || c is '.' or '_' or '-');

    /// <summary>Whether the task sends changes of this collection.</summary>
    public bool Includes(string collection)
    {
        foreach (var name in Collections)
        {
            if (name == "*" || string.Equals(name, collection, StringComparison.OrdinalIgnoreCase))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Every problem with the definition, each naming its setting under <paramref name="path"/>; the script is compiled too.</summary>
    public void Validate(string path, List<string> errors)
    {
        ArgumentNullException.ThrowIfNull(errors);
        if (!IsValidName(Name))
        {
            errors.Add($"{path}:Name must be 1-{MaxNameLength} letters, digits, '.', '_' or '-' (was '{Name}').");
        }

        if (Collections.Count == 0 || Collections.Any(string.IsNullOrWhiteSpace))
        {
            errors.Add($"{path}:Collections must list at least one collection (or \"*\"), none empty.");
        }

        if ((Kafka is null) == (RabbitMq is null))
        {
            errors.Add($"{path} must have exactly one destination: Kafka or RabbitMq.");
        }

        Kafka?.Validate($"{path}:Kafka", errors);
        RabbitMq?.Validate($"{path}:RabbitMq", errors);
        ScriptLimits.Validate(ScriptTimeoutMs, ScriptMemoryBytes, path, errors);
        if (Source is not null && !Uri.TryCreate(Source, UriKind.RelativeOrAbsolute, out _))
        {
            errors.Add($"{path}:Source '{Source}' is not a URI reference.");
        }

        if (!string.IsNullOrWhiteSpace(Script) && !EtlScript.TryCompile(Script, Limits, out _, out var scriptError))
        {
            errors.Add($"{path}:Script does not compile: {scriptError}");
        }
    }

    /// <summary>A copy for display: the RabbitMQ password and Kafka settings that look like secrets are hidden.</summary>
    public EtlTaskDefinition Redacted() => new()
    {
        Name = Name,
        Collections = [.. Collections],
        Kafka = Kafka is null ? null : new EtlKafkaSettings
        {
            BootstrapServers = Kafka.BootstrapServers,
            Topic = Kafka.Topic,
            Settings = KafkaClientSettings.Redact(Kafka.Settings),
        },
        RabbitMq = RabbitMq is null ? null : new EtlRabbitMqSettings
        {
            Uri = RabbitMq.Uri is null ? null : RabbitMqEndpoint.Redact(RabbitMq.Uri),
            Tls = RabbitMq.Tls is null ? null : new RabbitMqTlsSettings { CaPath = RabbitMq.Tls.CaPath, ServerName = RabbitMq.Tls.ServerName },
            Exchange = RabbitMq.Exchange,
            RoutingKey = RabbitMq.RoutingKey,
            RoutingKeyPath = RabbitMq.RoutingKeyPath,
        },
        Script = Script,
        ScriptTimeoutMs = ScriptTimeoutMs,
        ScriptMemoryBytes = ScriptMemoryBytes,
        Source = Source,
        FromConfiguration = FromConfiguration,
    };

    [JsonIgnore]
    internal ScriptLimits Limits => new(TimeSpan.FromMilliseconds(ScriptTimeoutMs), ScriptMemoryBytes);

    internal static void Require(string? value, string setting, List<string> errors)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            errors.Add($"{setting} is required.");
        }
    }
}
