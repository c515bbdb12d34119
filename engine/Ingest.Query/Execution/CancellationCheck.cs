namespace Ingest.Query.Execution;

/// <summary>
/// How often loops over rows, terms or group combinations look at their cancellation token: once every
/// <see cref="Interval"/> iterations (<c>(++n &amp; Mask) == 0</c>), so the check costs nothing measurable per row while a
/// budget or a client that went away stops the loop within a fraction of a millisecond (1,024 rows of the slowest loop,
/// a document read each, take well under 1 ms).
/// </summary>
internal static class CancellationCheck
{
    public const int Interval = 1024;

    public const int Mask = Interval - 1;
}
