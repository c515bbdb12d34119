namespace Ingest.Query.Reduce;

/// <summary>Equality of key tuples by value (strings ordinal, DateTime, bool).</summary>
internal sealed class KeyTupleComparer : IEqualityComparer<object?[]>
{
    public static readonly KeyTupleComparer Instance = new();

    public bool Equals(object?[]? x, object?[]? y)
    {
        if (x is null || y is null || x.Length != y.Length)
        {
            return x is null && y is null;
        }

        for (var i = 0; i < x.Length; i++)
        {
            if (!object.Equals(x[i], y[i]))
            {
                return false;
            }
        }

        return true;
    }

    public int GetHashCode(object?[] obj)
    {
        var hash = new HashCode();
        foreach (var value in obj)
        {
            hash.Add(value);
        }

        return hash.ToHashCode();
    }
}
