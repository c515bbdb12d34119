using System.Net;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

/// <summary><c>ingest stats</c>: the full view once, plain lines when not on a terminal, and its errors.</summary>
public sealed class StatsCommandTests
{
    private static string Stats(long documents, long etag, long consumed) => $$$"""
        {"store":{"lastEtag":{{{etag}}},"commits":40,"batches":50,"journalSyncs":40,"documents":{{{documents}}},"tombstones":2,"documentBytes":1048576,"deadLetters":1,"storageBytes":4194304,
           "disk":{"dataFileBytes":3145728,"journalBytes":1048576,"freePageBytes":524288},"fileSystemFreeBytes":10737418240},
         "collections":[],"deadLetters":1,
         "sources":[{"name":"orders","kind":"kafka","connected":true,"error":null,"consumed":{{{consumed}}},"written":118,"deadLetters":1,"paused":false,
           "partitions":[{"name":"orders","partition":0,"committedOffset":60,"highWatermark":62,"lag":2},{"name":"orders","partition":1,"committedOffset":60,"highWatermark":61,"lag":1}],"batching":{}}],
         "indexes":[{"name":"Orders/ByCustomer","state":"running","error":null,"stale":true,"lastIndexedEtag":100,"collectionsLastEtag":120,"entries":99,"automatic":false,
           "disk":{"dataFileBytes":262144,"journalBytes":262144,"freePageBytes":8192}}],
         "etl":[{"name":"to-billing","state":"retrying","destination":"kafka billing","lastSentEtag":90,"lagChanges":30,"lagSeconds":4.5,"messagesSent":90,"messagesPerSecond":12.4,"errors":0,"lastError":"broker down"}]}
        """;

    [Fact]
    public async Task Once_prints_the_store_sources_indexes_and_etl_tasks_and_exits_0()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, Stats(1200, 120, 120)));

        var run = await CommandLineRun.RunAsync("stats", "--once", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        Assert.Equal(
            """
            store: 1200 documents, 2 tombstones, 1.0 MiB of JSON, 4.0 MiB on disk, last etag 120, 1 dead letters
            disk: store 3.0 MiB data file, 1.0 MiB journals, 512.0 KiB free pages; indexes 512.0 KiB; file system 10.0 GiB free
            writes: - changes/s, - batches/s, - commits/s (40 commits, 40 journal syncs since start)

            source  kind   connection  consumed  msg/s  written  dead letters  lag  state    error
            ------  -----  ----------  --------  -----  -------  ------------  ---  -------  -----
            orders  kafka  connected   120       -      118      1             3    running

            index              state    indexed etag  entries  freshness  disk       journals   free pages  error
            -----------------  -------  ------------  -------  ---------  ---------  ---------  ----------  -----
            Orders/ByCustomer  running  100           99       stale      512.0 KiB  256.0 KiB  8.0 KiB

            etl task    state     sent etag  lag  msg/s  errors  last error
            ----------  --------  ---------  ---  -----  ------  -----------
            to-billing  retrying  90         30   12     0       broker down

            """.ReplaceLineEndings(),
            run.Output);
        Assert.Equal(["/stats"], server.RequestedPaths);
    }

    [Fact]
    public async Task Without_a_terminal_it_prints_one_plain_line_per_refresh_with_rates()
    {
        var calls = 0;
        using var server = new StubHttpServer(_ =>
        {
            var n = Interlocked.Increment(ref calls);
            return (HttpStatusCode.OK, Stats(1000 * n, 1000 * n, 1000 * n));
        });

        var run = await CommandLineRun.RunAsync("stats", "--interval", "0.05", "--count", "3", "--url", server.Url.ToString());

        Assert.True(run.ExitCode == 0, run.ToString());
        var lines = run.Output.Split(Environment.NewLine, StringSplitOptions.RemoveEmptyEntries);
        Assert.Equal(3, lines.Length);
        Assert.Matches(@"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ documents=1000 etag=1000 changes/s=- commits/s=- lag=3 dead-letters=1 sources=1/1 indexes=1 \(1 stale\) etl=1$", lines[0]);
        Assert.Matches(@" documents=2000 etag=2000 changes/s=\d+ commits/s=0 lag=3 ", lines[1]);
        Assert.Matches(@" documents=3000 etag=3000 changes/s=\d+ ", lines[2]);
        Assert.DoesNotContain("\u001b", run.Output, StringComparison.Ordinal);
        Assert.Equal(3, server.RequestedPaths.Count);
    }

    [Fact]
    public async Task An_unreachable_server_exits_1_naming_it()
    {
        var url = $"http://127.0.0.1:{LocalPorts.Unused()}/";

        var run = await CommandLineRun.RunAsync("stats", "--once", "--url", url);

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: cannot reach the server at {url}stats: ", run.Error, StringComparison.Ordinal);
        Assert.Equal(string.Empty, run.Output);
    }

    [Fact]
    public async Task An_answer_that_is_not_stats_exits_1()
    {
        using var server = new StubHttpServer(_ => (HttpStatusCode.OK, "[1,2]"));

        var run = await CommandLineRun.RunAsync("stats", "--once", "--url", server.Url.ToString());

        Assert.Equal(1, run.ExitCode);
        Assert.StartsWith($"error: {server.Url}stats did not answer with Ingest stats (", run.Error, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("--interval", "0", "--interval must be a positive number of seconds")]
    [InlineData("--count", "0", "--count must be a positive number")]
    public async Task A_bad_interval_or_count_is_a_usage_error(string option, string value, string message)
    {
        var run = await CommandLineRun.RunAsync("stats", option, value);

        Assert.Equal(2, run.ExitCode);
        Assert.Contains($"error: {message}", run.Error, StringComparison.Ordinal);
    }
}
