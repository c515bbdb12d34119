using System.Globalization;
using Ingest.Contracts.Http;

namespace Ingest.Cli.Output;

/// <summary>
/// How <c>ingest stats</c> shows a server's <c>/stats</c>: a block of tables (the store, sources, indexes, ETL
/// tasks), or one plain line for logs and pipes. Rates come from the previous sample, when there is one.
/// </summary>
internal static class StatsView
{
    /// <summary>The full view: a store line with rates, then a table per part the server has.</summary>
    public static async Task WriteBlockAsync(TextWriter output, StatsResponse stats, StatsResponse? previous, TimeSpan elapsed)
    {
        var store = stats.Store;
        await output.WriteLineAsync(Invariant(
            $"store: {store.Documents} documents, {store.Tombstones} tombstones, {Size(store.DocumentBytes)} of JSON, {Size(store.StorageBytes)} on disk, last etag {store.LastEtag}, {stats.DeadLetters} dead letters")).ConfigureAwait(false);
        if (store.Disk is { } disk)
        {
            await output.WriteLineAsync(Invariant(
                $"disk: store {Size(disk.DataFileBytes)} data file, {Size(disk.JournalBytes)} journals, {Size(disk.FreePageBytes)} free pages; indexes {Size(IndexBytes(stats))}; file system {(store.FileSystemFreeBytes is { } free ? Size(free) : "?")} free")).ConfigureAwait(false);
        }

        await output.WriteLineAsync(Invariant(
            $"writes: {Rate(store.LastEtag, previous?.Store.LastEtag, elapsed)} changes/s, {Rate(store.Batches, previous?.Store.Batches, elapsed)} batches/s, {Rate(store.Commits, previous?.Store.Commits, elapsed)} commits/s ({store.Commits} commits, {store.JournalSyncs} journal syncs since start)")).ConfigureAwait(false);

        await output.WriteLineAsync().ConfigureAwait(false);
        if (stats.Sources.Count == 0)
        {
            await output.WriteLineAsync("sources: none configured").ConfigureAwait(false);
        }
        else
        {
            var rows = new List<IReadOnlyList<string>>();
            foreach (var source in stats.Sources)
            {
                var before = previous?.Sources.FirstOrDefault(s => s.Name == source.Name);
                rows.Add(
                [
                    source.Name, source.Kind, source.Connected ? "connected" : "disconnected", Invariant($"{source.Consumed}"),
                    Rate(source.Consumed, before?.Consumed, elapsed), Invariant($"{source.Written}"), Invariant($"{source.DeadLetters}"),
                    Lag(source) is { } lag ? Invariant($"{lag}") : "?", source.Paused ? "paused" : "running", source.Error ?? string.Empty,
                ]);
            }

            await TextTable.WriteAsync(output, ["source", "kind", "connection", "consumed", "msg/s", "written", "dead letters", "lag", "state", "error"], rows).ConfigureAwait(false);
        }

        if (stats.Indexes is { Count: > 0 } indexes)
        {
            await output.WriteLineAsync().ConfigureAwait(false);
            var rows = new List<IReadOnlyList<string>>();
            foreach (var index in indexes)
            {
                rows.Add(
                [
                    index.Name, index.State, Invariant($"{index.LastIndexedEtag}"), Invariant($"{index.Entries}"), index.Stale ? "stale" : "up to date",
                    index.Disk is { } d ? Size(d.TotalBytes) : "-", index.Disk is { } j ? Size(j.JournalBytes) : "-", index.Disk is { } f ? Size(f.FreePageBytes) : "-",
                    index.Error ?? string.Empty,
                ]);
            }

            await TextTable.WriteAsync(output, ["index", "state", "indexed etag", "entries", "freshness", "disk", "journals", "free pages", "error"], rows).ConfigureAwait(false);
        }

        if (stats.Etl is { Count: > 0 } tasks)
        {
            await output.WriteLineAsync().ConfigureAwait(false);
            var rows = new List<IReadOnlyList<string>>();
            foreach (var task in tasks)
            {
                rows.Add([task.Name, task.State, Invariant($"{task.LastSentEtag}"), Invariant($"{task.LagChanges}"), Invariant($"{task.MessagesPerSecond:0}"), Invariant($"{task.Errors}"), task.LastError ?? string.Empty]);
            }

            await TextTable.WriteAsync(output, ["etl task", "state", "sent etag", "lag", "msg/s", "errors", "last error"], rows).ConfigureAwait(false);
        }
    }

    /// <summary>One line: <c>2026-11-26T08:10:00Z documents=1200 changes/s=35 lag=4 dead-letters=0 sources=1/1 indexes=2 (0 stale) etl=1</c>.</summary>
    public static string Line(DateTimeOffset at, StatsResponse stats, StatsResponse? previous, TimeSpan elapsed)
    {
        long lag = 0;
        var connected = 0;
        foreach (var source in stats.Sources)
        {
            lag += Lag(source) ?? 0;
            connected += source.Connected ? 1 : 0;
        }

        var indexes = stats.Indexes ?? [];
        var stale = indexes.Count(i => i.Stale);
        return Invariant(
            $"{at.UtcDateTime:yyyy-MM-ddTHH:mm:ssZ} documents={stats.Store.Documents} etag={stats.Store.LastEtag} changes/s={Rate(stats.Store.LastEtag, previous?.Store.LastEtag, elapsed)} commits/s={Rate(stats.Store.Commits, previous?.Store.Commits, elapsed)} lag={lag} dead-letters={stats.DeadLetters} sources={connected}/{stats.Sources.Count} indexes={indexes.Count} ({stale} stale) etl={stats.Etl?.Count ?? 0}");
    }

    private static long IndexBytes(StatsResponse stats)
    {
        long bytes = 0;
        foreach (var index in stats.Indexes ?? [])
        {
            bytes += index.Disk?.TotalBytes ?? 0;
        }

        return bytes;
    }

    private static long? Lag(SourceStatsEntry source)
    {
        long? lag = null;
        foreach (var partition in source.Partitions)
        {
            if (partition.Lag is { } value)
            {
                lag = (lag ?? 0) + value;
            }
        }

        return lag;
    }

    /// <summary>Per second since the previous sample; "-" on the first.</summary>
    private static string Rate(long now, long? before, TimeSpan elapsed) =>
        before is { } b && elapsed > TimeSpan.Zero ? Invariant($"{Math.Max(0, now - b) / elapsed.TotalSeconds:0}") : "-";

    /// <summary>Bytes in the largest unit that keeps the number at or above 1: <c>820 B</c>, <c>14.2 KiB</c>, <c>3.0 GiB</c>.</summary>
    private static string Size(long bytes)
    {
        string[] units = ["B", "KiB", "MiB", "GiB", "TiB"];
        double value = bytes;
        var unit = 0;
        while (value >= 1024 && unit < units.Length - 1)
        {
            value /= 1024;
            unit++;
        }

        return unit == 0 ? Invariant($"{bytes} B") : Invariant($"{value:0.0} {units[unit]}");
    }

    private static string Invariant(FormattableString text) => text.ToString(CultureInfo.InvariantCulture);
}
