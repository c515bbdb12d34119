namespace Ingest.Query.Execution;

/// <summary>The JSON kinds of the literals (and parameter values) a query compares a field with.</summary>
[Flags]
public enum LiteralKinds
{
    None = 0,
    String = 1,
    Number = 2,
    Bool = 4,
    Null = 8,
}
