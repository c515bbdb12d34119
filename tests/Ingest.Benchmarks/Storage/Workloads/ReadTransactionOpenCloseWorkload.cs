using System.Diagnostics;

namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// Opening and closing a read transaction on a reused read session, on one thread; time and
/// bytes allocated per open+close (GC.GetAllocatedBytesForCurrentThread). For SQLite the "open"
/// includes the statement that actually takes the WAL snapshot, since BEGIN alone takes nothing.
/// </summary>
internal sealed class ReadTransactionOpenCloseWorkload : KeyValueWorkload
{
    private const int Chunk = 1_000;
    private static readonly TimeSpan _warmup = TimeSpan.FromMilliseconds(300);
    private static readonly TimeSpan _minimumDuration = TimeSpan.FromMilliseconds(500);

    public override string Name => "read-txn-open-close";

    public override string Unit => "txns/s";

    public override string Target => "< 1 us, 0 B";

    public override bool ShowsCostPerOp => true;

    protected override WorkloadOutcome Run(IKeyValueStore store, WorkloadContext context)
    {
        context.EnsureLoadedTree(store);
        VerifyBeginReadTakesSnapshot(store);
        using var session = store.OpenReadSession();

        // Off the clock, long enough (and in enough calls) for the tiered JIT to promote the loop and what it calls.
        var warmupStart = Stopwatch.GetTimestamp();
        for (var calls = 0; calls < 100 || Stopwatch.GetElapsedTime(warmupStart) < _warmup; calls++)
        {
            OpenClose(session, Chunk);
        }

        // At least ReadTransactions of them and at least MinimumDuration: LMDB's take ~25 ns each,
        // so a fixed count short enough for SQLite would be over in a few milliseconds.
        var minimum = context.Sizes.ReadTransactions;
        Measure.Settle();
        var allocatedBefore = GC.GetAllocatedBytesForCurrentThread();
        var start = Stopwatch.GetTimestamp();
        long count = 0;
        do
        {
            OpenClose(session, Chunk);
            count += Chunk;
        }
        while (count < minimum || Stopwatch.GetElapsedTime(start) < _minimumDuration);

        var elapsed = Stopwatch.GetElapsedTime(start);
        var allocated = GC.GetAllocatedBytesForCurrentThread() - allocatedBefore;
        return WorkloadMeasurement.FromRate(count, elapsed, allocated);
    }

    /// <summary>
    /// Guards the figure's meaning: an "open" that does not pin a snapshot (as BEGIN alone in SQLite)
    /// would be measuring nothing. A commit after BeginRead must stay invisible until the next BeginRead.
    /// </summary>
    private static void VerifyBeginReadTakesSnapshot(IKeyValueStore store)
    {
        var probe = store.OpenTree("snapshot-probe");
        var key = "snapshot-probe"u8;
        Span<byte> value = stackalloc byte[16];
        using var session = store.OpenReadSession();

        session.BeginRead();
        using (var writer = store.BeginWrite())
        {
            writer.Put(probe, key, "committed"u8);
            writer.Commit();
        }

        var seenInOldSnapshot = session.Read(probe, key, value) >= 0;
        session.EndRead();
        session.BeginRead();
        var seenInNewSnapshot = session.Read(probe, key, value) >= 0;
        session.EndRead();

        if (seenInOldSnapshot || !seenInNewSnapshot)
        {
            throw new InvalidOperationException(
                $"{store.Name}'s BeginRead does not take a snapshot: a later commit was {(seenInOldSnapshot ? "visible" : "invisible")} " +
                $"in the open read transaction and {(seenInNewSnapshot ? "visible" : "invisible")} in the next one.");
        }
    }

    private static void OpenClose(IReadSession session, int count)
    {
        for (var i = 0; i < count; i++)
        {
            session.BeginRead();
            session.EndRead();
        }
    }
}
