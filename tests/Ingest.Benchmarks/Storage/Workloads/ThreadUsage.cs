using System.Runtime.InteropServices;

namespace Ingest.Benchmarks.Storage.Workloads;

/// <summary>
/// The calling thread's CPU time and page faults (Linux <c>getrusage(RUSAGE_THREAD)</c>): separates what a
/// workload computes from what the kernel does for it (zeroing fresh pages on first touch), which the wall clock mixes.
/// </summary>
internal readonly partial record struct ThreadUsage(TimeSpan User, TimeSpan System, long MinorFaults, long MajorFaults)
{
    public static bool Supported => OperatingSystem.IsLinux();

    public static ThreadUsage Now()
    {
        if (!Supported)
        {
            return default;
        }

        Native.RUsage u;
        return Native.GetRUsage(Native.RUsageThread, out u) == 0
            ? new ThreadUsage(ToTime(u.UserTime), ToTime(u.SystemTime), u.MinorFaults, u.MajorFaults)
            : default;
    }

    public static ThreadUsage operator -(ThreadUsage a, ThreadUsage b) =>
        new(a.User - b.User, a.System - b.System, a.MinorFaults - b.MinorFaults, a.MajorFaults - b.MajorFaults);

    public override string ToString() =>
        Supported
            ? $"cpu {User.TotalMilliseconds:0} ms user + {System.TotalMilliseconds:0} ms system, {MinorFaults:N0} minor faults"
            : "thread usage not measured on this OS";

    private static TimeSpan ToTime(Native.TimeVal t) => TimeSpan.FromTicks((t.Seconds * TimeSpan.TicksPerSecond) + (t.Microseconds * 10));

    private static partial class Native
    {
        public const int RUsageThread = 1;

        [StructLayout(LayoutKind.Sequential)]
        public struct TimeVal
        {
            public long Seconds;
            public long Microseconds;
        }

        [StructLayout(LayoutKind.Sequential)]
        public struct RUsage
        {
            public TimeVal UserTime;
            public TimeVal SystemTime;
            public long MaxRss;
            public long IxRss;
            public long IdRss;
            public long IsRss;
            public long MinorFaults;
            public long MajorFaults;
            public long Swaps;
            public long InBlock;
            public long OutBlock;
            public long MsgSnd;
            public long MsgRcv;
            public long Signals;
            public long VoluntarySwitches;
            public long InvoluntarySwitches;
        }

        [LibraryImport("libc", EntryPoint = "getrusage")]
        public static partial int GetRUsage(int who, out RUsage usage);
    }
}
