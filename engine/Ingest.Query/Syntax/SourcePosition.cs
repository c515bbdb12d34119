namespace Ingest.Query.Syntax;

/// <summary>Where a token starts in the query text: <paramref name="Offset"/> 0-based, <paramref name="Line"/> and <paramref name="Column"/> 1-based.</summary>
public readonly record struct SourcePosition(int Offset, int Line, int Column)
{
    public override string ToString() => $"line {Line}, col {Column}";
}
