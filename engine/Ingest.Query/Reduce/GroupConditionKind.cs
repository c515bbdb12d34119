namespace Ingest.Query.Reduce;

/// <summary>What a <see cref="GroupCondition"/> tests.</summary>
internal enum GroupConditionKind
{
    Equal,
    NotEqual,
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
    Between,
    In,
    Exists,
    StartsWith,
    And,
    Or,
    Not,
}
