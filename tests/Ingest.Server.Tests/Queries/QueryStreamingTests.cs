using System.Text;
using Ingest.Server.Queries;
using Ingest.Server.Tests.Hosting.Http;
using Microsoft.Extensions.DependencyInjection;
using Ingest.Query;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Queries;

/// <summary>
/// A large answer streams: its first bytes arrive while the query is still writing rows, and the server's heap does not
/// grow by anything like the answer's size while a client reads slowly. Alone in its collection, so no other test's
/// allocations blur the heap measurement.
/// </summary>
[Collection(QueryStreamingTests.Collection)]
public sealed class QueryStreamingTests
{
    public const string Collection = "query streaming (alone)";
    private const int Documents = 200_000;

    [Fact]
    public async Task A_200k_document_answer_starts_at_once_and_is_not_held_in_memory()
    {
        // The whole answer is one query; on a busy machine streaming it can take longer than the default budget (5 s).
        await using var api = await ApiTestServer.StartAsync("--Ingest:Queries:Timeout=00:05:00");
        await PutOrdersAsync(api.Store, Documents);
        var engine = api.Server.Services.GetRequiredService<QueryEngine>();
        await QueryAsync(api.Client, "from Orders limit 1", wait: null);
        var heapBefore = GC.GetTotalMemory(forceFullCollection: true);

        using var response = await api.Client.GetAsync(ApiTestServer.Relative("/queries?q=" + Uri.EscapeDataString("from Orders")), HttpCompletionOption.ResponseHeadersRead);
        await using var body = await response.Content.ReadAsStreamAsync();
        var first = new byte[4096];
        var read = await body.ReadAtLeastAsync(first, first.Length);

        // The client has taken 4 KiB of an answer of tens of megabytes: the query is still writing rows.
        Assert.StartsWith("{\"results\":[{\"id\":\"", Encoding.UTF8.GetString(first, 0, read), StringComparison.Ordinal);
        Assert.Equal(1, engine.RunningQueries);
        var heapWhileStalled = GC.GetTotalMemory(forceFullCollection: true);

        using var rest = new MemoryStream();
        await body.CopyToAsync(rest);
        var answerBytes = read + rest.Length;
        var tail = Encoding.UTF8.GetString(rest.GetBuffer(), (int)Math.Max(0, rest.Length - 400), (int)Math.Min(400, rest.Length));
        Assert.Contains($"\"totalResults\":{Documents}", tail, StringComparison.Ordinal);
        Assert.Equal(Documents, CountOccurrences(first.AsSpan(0, read), rest, "\"collection\":\"Orders\""));
        Assert.True(
            heapWhileStalled - heapBefore < answerBytes / 4,
            $"the heap grew by {heapWhileStalled - heapBefore:N0} bytes while the client stalled on an answer of {answerBytes:N0} bytes");
        await WaitUntilAsync(() => engine.RunningQueries == 0);
    }

    private static int CountOccurrences(ReadOnlySpan<byte> head, MemoryStream rest, string marker)
    {
        var needle = Encoding.UTF8.GetBytes(marker);
        var count = 0;
        foreach (var part in new[] { head.ToArray(), rest.ToArray() })
        {
            var span = part.AsSpan();
            int at;
            while ((at = span.IndexOf(needle)) >= 0)
            {
                count++;
                span = span[(at + needle.Length)..];
            }
        }

        return count;
    }

    private static async Task WaitUntilAsync(Func<bool> condition)
    {
        var deadline = DateTime.UtcNow.AddSeconds(30);
        while (!condition())
        {
            Assert.True(DateTime.UtcNow < deadline, "the query did not finish within 30 s of its last byte");
            await Task.Delay(10);
        }
    }
}
