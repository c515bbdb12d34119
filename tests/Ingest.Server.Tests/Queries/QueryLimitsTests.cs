using System.Diagnostics;
using System.Net;
using System.Text;
using Ingest.Server.Tests.Hosting.Http;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Queries;

/// <summary>
/// A query that would run for a minute or more (<see cref="HeavyQueries"/>) is stopped by its time budget and by its
/// client going away (the process's CPU time stops growing), queries beyond the cap get 429, and <c>/alive</c> answers
/// while a hundred of them are sent at once. Alone in its collection, so the CPU measurement sees this server only.
/// </summary>
[Collection(Collection)]
public sealed class QueryLimitsTests(QueryLimitsFixture fixture, ITestOutputHelper output) : IClassFixture<QueryLimitsFixture>
{
    public const string Collection = "query limits (alone)";

    private LimitsServer Server => fixture.Server;

    [Fact]
    public async Task A_query_that_would_run_for_minutes_is_stopped_by_the_budget_it_asked_for()
    {
        var watch = Stopwatch.StartNew();
        using var response = await HeavyQueries.PostAsync(Server, HeavyQueries.Query(), timeout: "1s");
        var problem = await HeavyQueries.ProblemAsync(response, HttpStatusCode.ServiceUnavailable);
        output.WriteLine($"answered in {watch.Elapsed.TotalMilliseconds:0} ms: {problem}");

        Assert.Equal("urn:ingest:problem:query-timeout", problem.GetProperty("type").GetString());
        var detail = problem.GetProperty("detail").GetString()!;
        Assert.Contains("time budget of 1 s (the request asked for 1 s; the server allows up to 600 s)", detail, StringComparison.Ordinal);
        Assert.Contains("Ingest:Queries:Timeout", detail, StringComparison.Ordinal);
        Assert.Equal(detail, problem.GetProperty("message").GetString());
        Assert.True(watch.Elapsed < TimeSpan.FromSeconds(20), $"the answer took {watch.Elapsed}");
        await WaitUntilIdleAsync();
    }

    [Fact]
    public async Task The_timeout_parameter_works_on_get_and_explain_and_a_bad_one_is_a_400()
    {
        var query = Uri.EscapeDataString(HeavyQueries.Query(100)); // 100 negations: seconds of work, a URL Kestrel accepts
        using (var get = await Server.Client.GetAsync(ApiTestServer.Relative($"/queries?q={query}&timeout=300ms")))
        {
            var problem = await HeavyQueries.ProblemAsync(get, HttpStatusCode.ServiceUnavailable);
            Assert.Contains("time budget of 300 ms", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        using (var explain = await Server.Client.GetAsync(ApiTestServer.Relative($"/queries/explain?q={query}&timeout=300ms")))
        {
            await HeavyQueries.ProblemAsync(explain, HttpStatusCode.ServiceUnavailable);
        }

        using (var bad = await Server.Client.GetAsync(ApiTestServer.Relative("/queries?q=from%20Orders&timeout=0s")))
        {
            var problem = await HeavyQueries.ProblemAsync(bad, HttpStatusCode.BadRequest);
            Assert.Contains("'timeout'", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        await WaitUntilIdleAsync();
    }

    [Fact]
    public async Task A_client_that_goes_away_stops_the_work_within_100_ms()
    {
        // A first round, not measured, so the code of the abort path is compiled (tiered compilation recompiles hot
        // methods on a background thread about 100 ms after new ones ran: that would be counted as the query's CPU).
        await using (var warmUp = await SendHeavyQueryAsync())
        {
            await Task.Delay(300);
        }

        await WaitUntilIdleAsync();
        await Task.Delay(500);

        var process = Process.GetCurrentProcess();
        var connection = await SendHeavyQueryAsync();
        await Task.Delay(300);
        var busy = CpuOver(process, 300);

        await connection.DisposeAsync();
        var closed = Stopwatch.StartNew();
        while (Server.Gate.Running > 0 && closed.Elapsed < TimeSpan.FromSeconds(30))
        {
            await Task.Delay(1);
        }

        var stopped = closed.Elapsed;
        await Task.Delay(100 - (int)Math.Min(100, closed.ElapsedMilliseconds));
        var idle = CpuOver(process, 500);
        output.WriteLine($"CPU over 300 ms while running: {busy.TotalMilliseconds:0} ms; query slot freed {stopped.TotalMilliseconds:0} ms after the close; CPU over the 500 ms from 100 ms after the close: {idle.TotalMilliseconds:0} ms");

        Assert.True(busy > TimeSpan.FromMilliseconds(100), $"the query used {busy.TotalMilliseconds} ms of CPU in 300 ms: it was not running");
        Assert.Equal(0, Server.Gate.Running);
        Assert.True(stopped < TimeSpan.FromMilliseconds(100), $"the query's slot was freed {stopped.TotalMilliseconds} ms after the client closed");
        Assert.True(idle < TimeSpan.FromMilliseconds(100), $"the process used {idle.TotalMilliseconds} ms of CPU in the 500 ms from 100 ms after the client closed");
        await WaitUntilIdleAsync();
    }

    [Fact]
    public async Task Beyond_the_running_and_waiting_queries_a_query_gets_429_with_Retry_After()
    {
        using var cancel = new CancellationTokenSource();
        var held = new List<Task>();
        for (var i = 0; i < QueryLimitsFixture.MaxConcurrent + QueryLimitsFixture.MaxQueued; i++)
        {
            held.Add(SendAndForgetAsync(cancel.Token));
        }

        await WaitUntilAsync(() => Server.Gate.Running == QueryLimitsFixture.MaxConcurrent && Server.Gate.Queued == QueryLimitsFixture.MaxQueued, "the slots and the queue to fill");
        using (var refused = await HeavyQueries.PostAsync(Server, "from Orders where Total > 5 limit 1"))
        {
            var problem = await HeavyQueries.ProblemAsync(refused, HttpStatusCode.TooManyRequests);
            Assert.Equal("1", refused.Headers.GetValues("Retry-After").Single());
            Assert.Equal("urn:ingest:problem:too-many-queries", problem.GetProperty("type").GetString());
            Assert.Contains("at most 2 queries at once (Ingest:Queries:MaxConcurrent)", problem.GetProperty("detail").GetString(), StringComparison.Ordinal);
        }

        await cancel.CancelAsync();
        await Task.WhenAll(held);
        await WaitUntilIdleAsync();
        using var after = await HeavyQueries.PostAsync(Server, "from Orders where Total > 5 limit 1");
        Assert.Equal(HttpStatusCode.OK, after.StatusCode);
    }

    [Fact]
    public async Task Alive_answers_while_100_heavy_queries_are_sent_at_once()
    {
        var queries = Enumerable.Range(0, 100).Select(_ => HeavyQueries.PostAsync(Server, HeavyQueries.Query(), timeout: "3s")).ToList();
        await WaitUntilAsync(() => Server.Gate.Running == QueryLimitsFixture.MaxConcurrent, "queries to run");
        for (var i = 0; i < 5; i++)
        {
            var watch = Stopwatch.StartNew();
            using var alive = await Server.Client.GetAsync(ApiTestServer.Relative("/alive"));
            output.WriteLine($"/alive: {(int)alive.StatusCode} in {watch.Elapsed.TotalMilliseconds:0} ms with {Server.Gate.Running} running, {Server.Gate.Queued} waiting");
            Assert.Equal(HttpStatusCode.OK, alive.StatusCode);
            await Task.Delay(200);
        }

        var statuses = new List<HttpStatusCode>();
        foreach (var query in queries)
        {
            using var response = await query;
            statuses.Add(response.StatusCode);
        }

        output.WriteLine(string.Join(", ", statuses.GroupBy(s => s).Select(g => $"{(int)g.Key}: {g.Count()}")));
        Assert.All(statuses, s => Assert.True(s is HttpStatusCode.ServiceUnavailable or HttpStatusCode.TooManyRequests, $"a heavy query answered {(int)s}"));
        Assert.Contains(HttpStatusCode.ServiceUnavailable, statuses);
        Assert.Contains(HttpStatusCode.TooManyRequests, statuses);
        await WaitUntilIdleAsync();
    }

    /// <summary>The process's CPU time (every thread) over the next <paramref name="milliseconds"/>.</summary>
    private static TimeSpan CpuOver(Process process, int milliseconds)
    {
        process.Refresh();
        var before = process.TotalProcessorTime;
        Thread.Sleep(milliseconds);
        process.Refresh();
        return process.TotalProcessorTime - before;
    }

    /// <summary>The heavy query over a connection of its own (no budget to speak of: ten minutes), once it runs.</summary>
    private async Task<RawHttpConnection> SendHeavyQueryAsync()
    {
        var body = Encoding.UTF8.GetBytes($$"""{"query":"{{HeavyQueries.Query()}}"}""");
        var connection = await RawHttpConnection.OpenAsync(Server.Address);
        await connection.SendAsync($"POST /queries HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\nContent-Length: {body.Length}\r\n\r\n");
        await connection.SendAsync(body);
        await WaitUntilAsync(() => Server.Gate.Running == 1, "the query to start");
        return connection;
    }

    private async Task SendAndForgetAsync(CancellationToken ct)
    {
        try
        {
            using var response = await HeavyQueries.PostAsync(Server, HeavyQueries.Query(), timeout: "60s", ct: ct);
        }
        catch (OperationCanceledException)
        {
            // The test cancels it: the client goes away.
        }
    }

    private async Task WaitUntilIdleAsync() =>
        await WaitUntilAsync(() => Server.Gate.Running == 0 && Server.Gate.Queued == 0 && Server.Engine.RunningQueries == 0, "every query to finish");

    private static async Task WaitUntilAsync(Func<bool> condition, string what)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, $"timed out waiting for {what}");
            await Task.Delay(5);
        }
    }
}
