namespace Ingest.Server.Sources;

/// <summary>The sources to consume, bound from <c>Ingest:Sources</c>; each list may be empty.</summary>
public sealed class SourcesOptions
{
    public const string SectionName = "Ingest:Sources";

    public List<KafkaSourceOptions> Kafka { get; set; } = [];

    public List<RabbitMqSourceOptions> RabbitMq { get; set; } = [];

    /// <summary>Every problem with these settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < Kafka.Count; i++)
        {
            var path = $"{SectionName}:Kafka:{i}";
            Kafka[i].Validate(path, errors);
            Kafka[i].ValidateScript(path, Kafka[i].EffectiveName(i), errors);
            CheckUnique(Kafka[i].EffectiveName(i), path, names, errors);
        }

        for (var i = 0; i < RabbitMq.Count; i++)
        {
            var path = $"{SectionName}:RabbitMq:{i}";
            RabbitMq[i].Validate(path, errors);
            RabbitMq[i].ValidateScript(path, RabbitMq[i].EffectiveName(i), errors);
            CheckUnique(RabbitMq[i].EffectiveName(i), path, names, errors);
        }

        return errors;
    }

    private static void CheckUnique(string name, string path, HashSet<string> names, List<string> errors)
    {
        if (!names.Add(name))
        {
            errors.Add($"{path}:Name '{name}' is used by another source; source names must be unique.");
        }
    }
}
