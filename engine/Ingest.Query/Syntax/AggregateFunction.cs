namespace Ingest.Query.Syntax;

public enum AggregateFunction
{
    /// <summary><c>count()</c>: matching documents; <c>count(Field)</c>: those where the field exists.</summary>
    Count,
    Sum,
    Avg,
    Min,
    Max,
}
