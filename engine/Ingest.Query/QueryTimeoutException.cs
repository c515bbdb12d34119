using System.Globalization;

namespace Ingest.Query;

/// <summary>
/// A query stopped because it worked for longer than its <see cref="QueryBudget"/> (waits for an index to catch up not
/// counted). The query was well formed; it reads or computes too much for the budget.
/// </summary>
public sealed class QueryTimeoutException : Exception
{
    public QueryTimeoutException(TimeSpan budget)
        : base(string.Create(CultureInfo.InvariantCulture, $"The query did not finish within its time budget of {Describe(budget)}."))
    {
        Budget = budget;
    }

    public QueryTimeoutException()
    {
    }

    public QueryTimeoutException(string message)
        : base(message)
    {
    }

    public QueryTimeoutException(string message, Exception innerException)
        : base(message, innerException)
    {
    }

    /// <summary>The budget the query ran out of.</summary>
    public TimeSpan Budget { get; }

    /// <summary><c>5 s</c>, <c>250 ms</c>: how a budget is written in messages.</summary>
    public static string Describe(TimeSpan budget) =>
        budget.TotalSeconds >= 1
            ? string.Create(CultureInfo.InvariantCulture, $"{budget.TotalSeconds:0.###} s")
            : string.Create(CultureInfo.InvariantCulture, $"{budget.TotalMilliseconds:0.###} ms");
}
