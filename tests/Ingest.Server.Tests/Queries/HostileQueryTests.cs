using System.Net;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Queries;

/// <summary>Queries built to hurt (deep nesting, huge texts and lists, stray bytes): each is a 400 problem, and the server goes on answering.</summary>
public sealed class HostileQueryTests
{
    public static TheoryData<string> Queries()
    {
        var deep = "from Orders where " + new string('(', 5_000) + "Total > 1" + new string(')', 5_000);
        var nots = "from Orders where " + string.Concat(Enumerable.Repeat("not ", 5_000)) + "Total > 1";
        var huge = "from Orders where Customer = '" + new string('x', 70 * 1024) + "'";
        var longIn = "from Orders where Total in (" + string.Join(", ", Enumerable.Range(0, 2_000)) + ")";
        return
        [
            deep, nots, huge, longIn,
            "from", "where Total > 1", "from Orders where", "from Orders where Total >", "from index", "from index ''",
            "from Orders where Total > 1e999999", "from Orders limit 99999999999999999999", "from Orders limit -1",
            "from Orders where startsWith(Total, 5)", "from Orders where Customer = 'a",
            "from Orders where \"unclosed > 1", "from Orders \u0000 where", "from Orders where Total > 1 group by time(OrderedAt, '0m') select count()",
            "from Orders where OrderedAt between '2020-01-01' and '2030-01-01' group by time(OrderedAt, '1ms') select count()",
            "from Orders select facet(Total, ranges('a', 'b'))", "from Orders order by Notes", "from Orders where Total = $p",
        ];
    }

    [Theory]
    [MemberData(nameof(Queries))]
    public async Task A_hostile_query_is_a_400_problem_and_the_server_goes_on(string query)
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 20);
        await QueryAsync(api.Client, "from Orders where search(Notes, 'late')");

        using var response = await PostAsync(api.Client, query, wait: "30s");

        await ApiTestServer.ReadProblemAsync(response, HttpStatusCode.BadRequest);
        Assert.Equal(20, Results(await QueryAsync(api.Client, "from Orders where Total >= 0")).Count);
    }
}
