namespace Ingest.Cli.Publishing;

/// <summary>What is wrong with the input, and where (1-based line and byte column, when known).</summary>
internal sealed record InputError(int? Line, int? Column, string Message)
{
    public override string ToString() => (Line, Column) switch
    {
        ({ } line, { } column) => $"line {line}, column {column}: {Message}",
        ({ } line, null) => $"line {line}: {Message}",
        _ => Message,
    };
}
