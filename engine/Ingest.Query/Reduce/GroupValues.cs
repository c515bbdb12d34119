namespace Ingest.Query.Reduce;

/// <summary>
/// Order and equality of the values of group rows (null, double, long, string, UTC DateTime, bool): null first, then
/// by type, numbers (long and double alike) by value, strings by ordinal UTF-16 order.
/// </summary>
internal static class GroupValues
{
    public static int Compare(object? x, object? y)
    {
        if (x is null || y is null)
        {
            return (x is null ? 0 : 1) - (y is null ? 0 : 1);
        }

        var (rx, ry) = (Rank(x), Rank(y));
        if (rx != ry)
        {
            return rx.CompareTo(ry);
        }

        return x switch
        {
            string s => string.CompareOrdinal(s, (string)y),
            DateTime t => t.CompareTo((DateTime)y),
            bool b => b.CompareTo((bool)y),
            _ => ToDouble(x).CompareTo(ToDouble(y)),
        };
    }

    private static int Rank(object value) => value switch
    {
        double or long => 1,
        string => 2,
        DateTime => 3,
        _ => 4,
    };

    private static double ToDouble(object value) => value is long l ? l : (double)value;
}
