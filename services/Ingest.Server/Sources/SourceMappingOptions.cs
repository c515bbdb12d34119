using Ingest.Server.Scripting;
using Ingest.Server.Sources.Mapping;

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

    /// <summary>
    /// JavaScript defining <c>function transform(body, message)</c>, which turns each message into
    /// zero or more document operations in place of the <c>ingest-*</c> headers; see docs/ingestion.md,
    /// "Transforms on ingest". Unset: the header-driven mapping.
    /// </summary>
    public string? Script { get; set; }

    /// <summary>The longest the script may run for one message; longer makes the message a dead letter.</summary>
    public int ScriptTimeoutMs { get; set; } = 1_000;

    /// <summary>The most the script may allocate for one message.</summary>
    public long ScriptMemoryBytes { get; set; } = 64L * 1024 * 1024;

    protected abstract string Kind { get; }

    public string EffectiveName(int index) => string.IsNullOrWhiteSpace(Name) ? $"{Kind}-{index}" : Name;

    public MappingRules ToMappingRules() => new()
    {
        Collection = string.IsNullOrEmpty(Collection) ? null : Collection,
        IdProperty = string.IsNullOrEmpty(IdProperty) ? null : IdProperty,
        MaxBodyBytes = MaxBodyBytes,
    };

    /// <summary>The compiled <see cref="Script"/>, or null when there is none.</summary>
    /// <exception cref="InvalidOperationException">The script does not compile (settings are validated at start, so only when they were not).</exception>
    internal SourceScript? CompileScript(string name)
    {
        if (string.IsNullOrWhiteSpace(Script))
        {
            return null;
        }

        return SourceScript.TryCompile(Script, Limits, out var script, out var error)
            ? script
            : throw new InvalidOperationException($"Source '{name}': Script does not compile: {error}");
    }

    /// <summary>Compiles <see cref="Script"/>, if any, so a broken one stops the start naming the setting and the source.</summary>
    internal void ValidateScript(string path, string name, List<string> errors)
    {
        if (!string.IsNullOrWhiteSpace(Script) && !SourceScript.TryCompile(Script, Limits, out _, out var error))
        {
            errors.Add($"{path}:Script of source '{name}' does not compile: {error}");
        }
    }

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

        ScriptLimits.Validate(ScriptTimeoutMs, ScriptMemoryBytes, path, errors);
    }

    private ScriptLimits Limits => new(TimeSpan.FromMilliseconds(ScriptTimeoutMs), ScriptMemoryBytes);

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
