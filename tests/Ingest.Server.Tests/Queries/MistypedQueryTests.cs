using System.Net;
using System.Text.Json;
using Ingest.Server.Tests.Hosting.Http;
using static Ingest.Server.Tests.Queries.QueryTestKit;

namespace Ingest.Server.Tests.Queries;

/// <summary>Typos in a dashboard editor, over HTTP: an answer with a warning, a 400 or a 409, and the indexes left as they were.</summary>
public sealed class MistypedQueryTests
{
    [Fact]
    public async Task Typos_answer_with_a_warning_and_leave_the_indexes_as_they_were()
    {
        await using var api = await ApiTestServer.StartAsync();
        await PutOrdersAsync(api.Store, 30);

        var collection = await QueryAsync(api.Client, "from Ordrs where Customer = 'acme'");
        var field = await QueryAsync(api.Client, "from Orders where Custmer = 'acme'");
        using var sorted = await PostAsync(api.Client, "from Orders order by Custmer");

        Assert.Empty(Results(collection));
        Assert.StartsWith("unknown collection 'Ordrs': it has no documents; did you mean 'Orders'?", Warning(collection), StringComparison.Ordinal);
        Assert.Empty(Results(field));
        Assert.StartsWith("unknown field 'Custmer' in Orders (none of ", Warning(field), StringComparison.Ordinal);
        Assert.Contains("did you mean 'Customer'?", Warning(field), StringComparison.Ordinal);
        Assert.Contains("did you mean 'Customer'?", await ApiTestServer.ReadProblemAsync(sorted, HttpStatusCode.BadRequest), StringComparison.Ordinal);
        using var indexes = JsonDocument.Parse(await api.Client.GetStringAsync("/indexes"));
        Assert.Equal(0, indexes.RootElement.GetProperty("items").GetArrayLength());

        // The right query still makes its index, and has no warnings.
        var right = await QueryAsync(api.Client, "from Orders where Customer = 'acme'");
        Assert.True(right.GetProperty("indexCreated").GetBoolean());
        Assert.False(right.TryGetProperty("warnings", out _));
    }

    [Fact]
    public async Task Beyond_the_automatic_indexes_a_collection_may_have_a_query_gets_409()
    {
        await using var api = await ApiTestServer.StartAsync("--Ingest:Queries:MaxAutoIndexesPerCollection=1");
        await PutOrdersAsync(api.Store, 30);
        await QueryAsync(api.Client, "from Orders where Customer = 'acme'");

        using var refused = await PostAsync(api.Client, "from Orders where Total > 3");

        Assert.Contains("Ingest:Queries:MaxAutoIndexesPerCollection = 1", await ApiTestServer.ReadProblemAsync(refused, HttpStatusCode.Conflict), StringComparison.Ordinal);
    }

    private static string Warning(JsonElement answer) => Assert.Single(answer.GetProperty("warnings").EnumerateArray()).GetString()!;
}
