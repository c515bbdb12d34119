using System.Globalization;
using System.Text.Json;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Query;
using Ingest.Server.Queries;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Options;

namespace Ingest.Benchmarks.Ingestion;

/// <summary>
/// What the <c>kafka-ingest-under-queries</c> workload runs beside the Kafka source: the store's query engine with an
/// index on <c>customerNumber</c> (both of its runs have it, so indexing costs the same) and, in the measured run,
/// <see cref="Clients"/> clients sending heavy queries through the server's own <see cref="QueryGate"/> with default
/// limits (its budget, its cap, its queue): a refused client waits the Retry-After second, as a polite one would.
/// Each query reads every customer number once per negation (<see cref="Negations"/> of them), so it runs out of its
/// budget as soon as the store holds a few hundred thousand customers.
/// </summary>
internal sealed class QueryLoad : IAsyncDisposable
{
    public const int Clients = 100;
    public const int Negations = 200;

    private static readonly string HeavyQuery =
        "from index 'Customers/ByNumber' where customerNumber >= 0" + string.Concat(Enumerable.Repeat(" and not (customerNumber < 0 and customerNumber >= 0)", Negations));

    private readonly QueryEngine _engine;
    private readonly string _directory;
    private readonly QueryGate _gate = new(Options.Create(new QueryLimitOptions()));
    private readonly CancellationTokenSource _stop = new();
    private readonly List<Task> _clients = [];
    private long _finished;
    private long _timedOut;
    private long _refused;

    private QueryLoad(QueryEngine engine, string directory)
    {
        _engine = engine;
        _directory = directory;
    }

    public static async Task<QueryLoad> StartAsync(DocumentStore store, string storeDirectory, bool withQueries)
    {
        var directory = storeDirectory + ".queries";
        var engine = new QueryEngine(store, directory);
        await engine.OpenAsync().ConfigureAwait(false);
        await engine.Indexes.PutAsync(new IndexDefinition(
            "Customers/ByNumber", [ProfileDocuments.Collection], [new IndexFieldDefinition("customerNumber", "customerNumber", IndexFieldType.Number)])).ConfigureAwait(false);
        var load = new QueryLoad(engine, directory);
        for (var i = 0; withQueries && i < Clients; i++)
        {
            load._clients.Add(Task.Run(load.ClientAsync));
        }

        return load;
    }

    public string Describe() => string.Create(
        CultureInfo.InvariantCulture,
        $"{Clients} clients: {_finished:N0} queries answered, {_timedOut:N0} stopped by their {QueryTimeoutException.Describe(_gate.Options.Timeout)} budget, {_refused:N0} refused (429) with at most {_gate.Options.EffectiveMaxConcurrent} running and {_gate.Options.MaxQueued} waiting");

    public async ValueTask DisposeAsync()
    {
        await _stop.CancelAsync().ConfigureAwait(false);
        await Task.WhenAll(_clients).ConfigureAwait(false);
        await _engine.DisposeAsync().ConfigureAwait(false);
        _gate.Dispose();
        _stop.Dispose();
        Directory.Delete(_directory, recursive: true);
    }

    private async Task ClientAsync()
    {
        var context = new DefaultHttpContext { RequestAborted = _stop.Token };
        var parameters = new Dictionary<string, JsonElement>();
        while (!_stop.IsCancellationRequested)
        {
            try
            {
                using var ticket = await _gate.EnterAsync(context, null).ConfigureAwait(false);
                using var query = await _engine.StartAsync(HeavyQuery, parameters, ticket.Options(null, null), ticket.Token).ConfigureAwait(false);
                await using var writer = new Utf8JsonWriter(Stream.Null);
                writer.WriteStartArray();
                await query.Results.WriteResultsAsync(writer, static _ => ValueTask.CompletedTask, ticket.Token).ConfigureAwait(false);
                Interlocked.Increment(ref _finished);
            }
            catch (QueryTimeoutException)
            {
                Interlocked.Increment(ref _timedOut);
            }
            catch (QueryRejectedException)
            {
                Interlocked.Increment(ref _refused);
                await Task.Delay(TimeSpan.FromSeconds(1), _stop.Token).ContinueWith(static _ => { }, TaskScheduler.Default).ConfigureAwait(false);
            }
            catch (OperationCanceledException) when (_stop.IsCancellationRequested)
            {
                return;
            }
            catch (OperationCanceledException)
            {
                // The budget ran out while the rows were written (StartAsync turns an expiry before the first row
                // into QueryTimeoutException; the server's endpoint does the same for one while writing).
                Interlocked.Increment(ref _timedOut);
            }
        }
    }
}
