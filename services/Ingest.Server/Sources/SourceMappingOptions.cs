using Ingest.Contracts.Mapping;

namespace Ingest.Server.Sources;

/// <summary>What every source has: a name and how its messages become documents.</summary>
public abstract class SourceMappingOptions
{
    /// <summary>Names the source in /stats, dead letters and stored positions; defaults to the kind and index, e.g. "kafka-0".</summary>
    public string? Name { get; set; }

    /// <summary>The collection for messages without an <c>ingest-collection</c> header; unset uses the topic or queue name.</summary>
    public string? Collection { get; set; }

    /// <summary>A top-level JSON property that holds the id, used when the message carries no id of its own.</summary>
    public string? IdProperty { get; set; }

    /// <summary>Larger bodies become dead letters.</summary>
    public int MaxBodyBytes { get; set; } = MappingRules.DefaultMaxBodyBytes;

    protected abstract string Kind { get; }

    public string EffectiveName(int index) => string.IsNullOrWhiteSpace(Name) ? $"{Kind}-{index}" : Name;

    public MappingRules ToMappingRules() => new()
    {
        Collection = string.IsNullOrEmpty(Collection) ? null : Collection,
        IdProperty = string.IsNullOrEmpty(IdProperty) ? null : IdProperty,
        MaxBodyBytes = MaxBodyBytes,
    };

    internal virtual void Validate(string path, List<string> errors)
    {
        if (Name is not null && (Name.Length is 0 or > 100 || Name.Contains('/', StringComparison.Ordinal)))
        {
            errors.Add($"{path}:Name must be 1-100 characters without '/' (was '{Name}').");
        }

        if (Collection is { Length: > 128 })
        {
            errors.Add($"{path}:Collection must be at most 128 characters.");
        }

        if (MaxBodyBytes <= 0)
        {
            errors.Add($"{path}:MaxBodyBytes must be > 0 (was {MaxBodyBytes}).");
        }
    }

    internal static void Require(string? value, string path, string setting, List<string> errors)
    {
        if (string.IsNullOrWhiteSpace(value))
        {
            errors.Add($"{path}:{setting} is required.");
        }
    }

    internal static void RequireNames(List<string> values, string path, string setting, List<string> errors)
    {
        if (values.Count == 0)
        {
            errors.Add($"{path}:{setting} must list at least one name.");
            return;
        }

        for (var i = 0; i < values.Count; i++)
        {
            if (string.IsNullOrWhiteSpace(values[i]))
            {
                errors.Add($"{path}:{setting}:{i} is empty.");
            }
        }
    }
}
