using System.Globalization;

namespace Ingest.Server.Cluster;

/// <summary>
/// A place in the cluster topic: partition and offset. Written <c>partition:offset</c> in the
/// <c>X-Ingest-Position</c> header and the <c>?after=</c> parameter.
/// </summary>
public readonly record struct ClusterPosition(int Partition, long Offset)
{
    public override string ToString() => string.Create(CultureInfo.InvariantCulture, $"{Partition}:{Offset}");

    /// <summary>Parses <c>partition:offset</c> (both non-negative integers); false for anything else.</summary>
    public static bool TryParse(ReadOnlySpan<char> text, out ClusterPosition position)
    {
        position = default;
        var colon = text.IndexOf(':');
        if (colon <= 0
            || !int.TryParse(text[..colon], NumberStyles.None, CultureInfo.InvariantCulture, out var partition)
            || !long.TryParse(text[(colon + 1)..], NumberStyles.None, CultureInfo.InvariantCulture, out var offset))
        {
            return false;
        }

        position = new ClusterPosition(partition, offset);
        return true;
    }
}
