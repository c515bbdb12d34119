using System.Text;
using System.Text.Json;
using System.Text.Json.Nodes;
using Ingest.Documents;
using Ingest.Query.Syntax;
using Ingest.Query.Tests.Execution;
using Ingest.Query.Tests.Syntax;

namespace Ingest.Query.Tests.Model;

/// <summary>
/// The randomized model test of issue 13: random documents in a real document store, indexed by a real index set;
/// random valid queries run through the parser and the query runner must give what the brute-force evaluator computes
/// from the raw JSON; invalid queries must give a QueryException and nothing else. INGEST_TEST_SEED replays a run.
/// </summary>
public sealed class QueryModelTests
{
    private const int DocumentCount = 300;
    private const int QueryCount = 1_000;

    [Fact]
    public async Task Random_queries_return_what_the_brute_force_evaluator_computes()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        var written = ModelData.Documents(random, DocumentCount);
        await using var host = await OpenAsync(written);
        var (documents, rewritten, deleted) = ModelData.Change(random, written);
        var batch = new WriteBatch();
        foreach (var document in rewritten)
        {
            batch.Put(document.Id, ModelIndex.Collection, document.Json);
        }

        foreach (var id in deleted)
        {
            batch.Delete(id);
        }

        await host.Store.WriteAsync(batch);
        await host.CatchUpAsync(ModelIndex.Name);
        var evaluator = new ModelEvaluator(ModelIndex.Definition, documents);
        var generator = new ModelQueryGenerator(random, documents);
        var failures = new List<string>();
        var selective = 0;
        for (var i = 0; i < QueryCount * TestSeed.Scale; i++)
        {
            var (query, parameters) = generator.Next();
            var text = QueryFormatter.Format(query);
            var (problem, expected) = await CompareAsync(host, evaluator, text, parameters);
            selective += expected.Total > 0 && expected.Total < documents.Count && expected.Kind != ModelResultKind.Aggregation ? 1 : 0;
            if (problem != null)
            {
                failures.Add($"query {i}: {text}{Environment.NewLine}  parameters: {JsonSerializer.Serialize(parameters)}{Environment.NewLine}  {problem}");
            }
        }

        // Filters that match some documents but not all are what tells a planner from the model.
        Assert.True(selective > QueryCount * TestSeed.Scale / 4, $"only {selective} document queries matched some but not all documents");
        Assert.True(failures.Count == 0, $"seed {seed} (replay with INGEST_TEST_SEED={seed}): {failures.Count} of {QueryCount * TestSeed.Scale} queries differ from the model; the first ones:{Environment.NewLine}{string.Join(Environment.NewLine, failures.Take(8))}");
    }

    [Fact]
    public async Task Invalid_queries_give_a_query_error_and_nothing_else()
    {
        var seed = TestSeed.Next();
        var random = new Random(seed);
        var documents = ModelData.Documents(random, 50);
        await using var host = await OpenAsync(documents);
        var generator = new ModelQueryGenerator(random, documents);
        var errors = 0;
        var total = QueryCount * TestSeed.Scale;
        for (var i = 0; i < total; i++)
        {
            var (query, parameters) = generator.Next();
            var text = QueryMutations.Mutate(QueryFormatter.Format(query), random);
            if (random.Next(4) == 0)
            {
                // A valid text with a parameter missing or of another JSON type.
                text = QueryFormatter.Format(query);
                foreach (var name in parameters.Keys.ToList())
                {
                    if (random.Next(2) == 0)
                    {
                        parameters.Remove(name);
                    }
                    else
                    {
                        parameters[name] = JsonSerializer.SerializeToElement(random.Next(3) switch { 0 => (object)"x", 1 => 5, _ => new[] { 1 } });
                    }
                }
            }

            try
            {
                await host.QueryAsync(text, parameters);
            }
            catch (QueryException)
            {
                errors++;
            }
            catch (Exception ex)
            {
                Assert.Fail($"seed {seed} (replay with INGEST_TEST_SEED={seed}): {ex.GetType().Name} instead of a QueryException for{Environment.NewLine}{text}{Environment.NewLine}parameters: {JsonSerializer.Serialize(parameters)}{Environment.NewLine}{ex}");
            }
        }

        Assert.True(errors > total / 3, $"only {errors} of {total} invalid queries were errors");
    }

    private static async Task<QueryHost> OpenAsync(List<ModelDocument> documents)
    {
        var host = await QueryHost.OpenAsync(ModelIndex.Definition);
        try
        {
            // Batches of 64, so the index applies several batches; entry order stays write order.
            foreach (var chunk in documents.Chunk(64))
            {
                await host.PutAsync(ModelIndex.Collection, chunk.Select(d => (d.Id, d.Json)));
            }

            await host.CatchUpAsync(ModelIndex.Name);
            return host;
        }
        catch
        {
            await host.DisposeAsync();
            throw;
        }
    }

    /// <summary>The model's answer, and null when the runner's answer equals it, else what differs.</summary>
    private static async Task<(string? Problem, ModelResult Expected)> CompareAsync(QueryHost host, ModelEvaluator evaluator, string text, Dictionary<string, JsonElement> parameters)
    {
        var parsed = QueryParser.Parse(text);
        var expected = evaluator.Evaluate(parsed, parameters);
        QueryHost.Page page;
        try
        {
            page = await host.QueryAsync(text, parameters);
        }
        catch (QueryException ex)
        {
            return ($"valid query rejected: {ex.Message}", expected);
        }

        if (page.Total != expected.Total)
        {
            return ($"totalResults {page.Total}, model {expected.Total}", expected);
        }

        switch (expected.Kind)
        {
            case ModelResultKind.Documents:
            {
                var ids = QueryHost.Ids(page);
                var expectedIds = expected.Documents.Select(d => d.Id).ToList();
                if (!ids.SequenceEqual(expectedIds))
                {
                    return ($"ids{Environment.NewLine}  actual: {string.Join(", ", ids)}{Environment.NewLine}  model:  {string.Join(", ", expectedIds)}", expected);
                }

                for (var i = 0; i < ids.Count; i++)
                {
                    if (!JsonElement.DeepEquals(page.Rows[i].GetProperty("document"), expected.Documents[i].Root))
                    {
                        return ($"document {ids[i]}: {page.Rows[i].GetProperty("document").GetRawText()}, written {expected.Documents[i].Json}", expected);
                    }
                }

                return (null, expected);
            }

            default:
            {
                var actual = page.Rows.Select(r => JsonNode.Parse(r.GetRawText())!.AsObject()).ToList();
                if (actual.Count != expected.Rows.Count || actual.Zip(expected.Rows).Any(p => !Equivalent(p.First, p.Second)))
                {
                    return ($"rows{Environment.NewLine}  actual: {Show(actual)}{Environment.NewLine}  model:  {Show(expected.Rows)}", expected);
                }

                return (null, expected);
            }
        }
    }

    private static string Show(List<JsonObject> rows)
    {
        var text = new StringBuilder();
        foreach (var row in rows.Take(12))
        {
            text.Append(row.ToJsonString()).Append(' ');
        }

        return rows.Count > 12 ? text.Append($"... ({rows.Count} rows)").ToString() : text.ToString();
    }

    private static double Number(JsonValue value) => double.Parse(value.ToJsonString(), System.Globalization.CultureInfo.InvariantCulture);

    /// <summary>Same properties (any order) and values; numbers equal up to rounding of sums in another order.</summary>
    private static bool Equivalent(JsonNode? a, JsonNode? b)
    {
        if (a == null || b == null)
        {
            return a == null && b == null;
        }

        switch (a)
        {
            case JsonObject x when b is JsonObject y:
                return x.Count == y.Count && x.All(p => y.ContainsKey(p.Key) && Equivalent(p.Value, y[p.Key]));
            case JsonArray x when b is JsonArray y:
                return x.Count == y.Count && x.Zip(y).All(p => Equivalent(p.First, p.Second));
            case JsonValue x when b is JsonValue y:
                if (x.GetValueKind() == JsonValueKind.Number && y.GetValueKind() == JsonValueKind.Number)
                {
                    var (u, v) = (Number(x), Number(y));
                    return u == v || Math.Abs(u - v) <= 1e-9 * Math.Max(Math.Abs(u), Math.Abs(v));
                }

                return JsonNode.DeepEquals(x, y);
            default:
                return false;
        }
    }
}
