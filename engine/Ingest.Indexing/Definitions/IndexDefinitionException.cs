namespace Ingest.Indexing.Definitions;

/// <summary>A definition failed validation; <see cref="Errors"/> lists every problem. Nothing was stored.</summary>
public sealed class IndexDefinitionException : Exception
{
    public IndexDefinitionException()
        : this([])
    {
    }

    public IndexDefinitionException(string message)
        : base(message)
    {
        Errors = [];
    }

    public IndexDefinitionException(string message, Exception innerException)
        : base(message, innerException)
    {
        Errors = [];
    }

    public IndexDefinitionException(IReadOnlyList<IndexDefinitionError> errors)
        : base(Describe(errors))
    {
        Errors = errors;
    }

    public IndexDefinitionException(string indexName, IReadOnlyList<IndexDefinitionError> errors)
        : this(errors)
    {
        IndexName = indexName;
    }

    /// <summary>The name of the index the definition was for, when known.</summary>
    public string? IndexName { get; }

    public IReadOnlyList<IndexDefinitionError> Errors { get; }

    private static string Describe(IReadOnlyList<IndexDefinitionError> errors)
    {
        ArgumentNullException.ThrowIfNull(errors);
        return errors.Count == 0
            ? "The index definition is invalid."
            : "The index definition is invalid: " + string.Join("; ", errors.Select(e => $"{e.Field}: {e.Message}"));
    }
}
