namespace Ingest.Server.Etl;

/// <summary>The ETL tasks defined in configuration: <c>Ingest:Etl:0</c>, <c>Ingest:Etl:1</c>, ...</summary>
public sealed class EtlOptions
{
    public const string SectionName = "Ingest:Etl";

    public List<EtlTaskDefinition> Tasks { get; set; } = [];

    /// <summary>Every problem with the tasks, each naming its setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        var names = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < Tasks.Count; i++)
        {
            var path = $"{SectionName}:{i}";
            Tasks[i].Validate(path, errors);
            if (Tasks[i].Name is { } name && !names.Add(name))
            {
                errors.Add($"{path}:Name '{name}' is used by another ETL task; names must be unique.");
            }
        }

        return errors;
    }
}
