using System.Text;

namespace Ingest.Server.Cluster;

/// <summary>Reads the headers of a <see cref="ClusterRecord"/> a handler is given.</summary>
internal static class ClusterRecordHeaders
{
    /// <summary>The last value of header <paramref name="name"/> as UTF-8 text; null when absent.</summary>
    public static string? Text(ClusterRecord record, string name)
    {
        ArgumentNullException.ThrowIfNull(record);
        for (var i = record.Headers.Count - 1; i >= 0; i--)
        {
            if (record.Headers[i].Key == name)
            {
                return Encoding.UTF8.GetString(record.Headers[i].Value);
            }
        }

        return null;
    }
}
