namespace Ingest.Query.Syntax;

/// <summary>
/// <c>time(Field, '5m')</c>: buckets of a datetime field in UTC. The interval is a literal or parameter string
/// <c>&lt;positive integer&gt;&lt;unit&gt;</c>, units <c>ms s m h d w M y</c> (M = calendar month, y = calendar year,
/// w = weeks starting Monday); parsed and bucketed by the aggregation code.
/// </summary>
public sealed record TimeGroupBy(FieldRef Field, QueryValue Interval, SourcePosition Position) : GroupByItem(Position);
