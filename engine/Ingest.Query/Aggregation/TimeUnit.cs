namespace Ingest.Query.Aggregation;

/// <summary>The unit of a <c>time()</c> interval: fixed lengths, or calendar months and years.</summary>
internal enum TimeUnit
{
    Millisecond,
    Second,
    Minute,
    Hour,
    Day,
    Week,
    Month,
    Year,
}
