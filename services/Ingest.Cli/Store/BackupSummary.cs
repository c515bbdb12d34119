using System.Globalization;
using Ingest.Storage.Backup;

namespace Ingest.Cli.Store;

/// <summary>What backup and restore print: a headline with totals, then one line per entry.</summary>
internal static class BackupSummary
{
    public static async Task WriteAsync(TextWriter output, string headline, IReadOnlyList<BackupEntry> entries, long bytes, TimeSpan elapsed)
    {
        var environments = entries.Count(e => e.IsEnvironment);
        await output.WriteLineAsync(string.Create(
            CultureInfo.InvariantCulture,
            $"{headline}: {environments} environment(s), {entries.Count - environments} file(s), {bytes / (1024.0 * 1024):0.0} MiB in {elapsed.TotalSeconds:0.0} s")).ConfigureAwait(false);
        foreach (var entry in entries)
        {
            var what = entry.IsEnvironment
                ? string.Create(CultureInfo.InvariantCulture, $"transaction {entry.TransactionId}, {entry.Pages} pages")
                : string.Create(CultureInfo.InvariantCulture, $"{entry.Bytes} bytes");
            await output.WriteLineAsync($"  {entry.Path}: {what}").ConfigureAwait(false);
        }
    }
}
