namespace Ingest.Indexing.Paths;

/// <summary>Why a path does not compile, at a 0-based character position of the path text.</summary>
public sealed record JsonPathError(string Problem, int Position)
{
    public override string ToString() => $"{Problem} at {Position}";
}
