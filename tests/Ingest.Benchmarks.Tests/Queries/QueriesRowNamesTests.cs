using System.Text.Json;
using Ingest.Benchmarks.Queries;
using Ingest.Benchmarks.Reporting;

namespace Ingest.Benchmarks.Tests.Queries;

/// <summary>
/// The queries benchmark's JSON rows, as the default full run writes them: the names independent checks read (issue 28),
/// from the passes, systems and cells the run makes (systems created empty, nothing loaded or timed).
/// </summary>
public sealed class QueriesRowNamesTests : IDisposable
{
    private static readonly string[] MapReduce = ["mr-revenue-per-hour", "mr-top-companies", "mr-count-per-status"];
    private static readonly string[] MapReduceSystems = ["ingest", "ingest-query-time", "sqlite", "duckdb"];
    private readonly TestDirectory _directory = new();

    [Fact]
    public void The_default_full_run_writes_the_map_reduce_grafana_and_duckdb_rows_by_their_names()
    {
        var rows = JsonRows(QueriesCommand.Passes(new BenchmarkArguments { Seed = 1 }, tenMillion: true));

        foreach (var workload in MapReduce.Concat(MapReduce.Select(w => w + "-10m")))
        {
            Assert.Equal(MapReduceSystems.Order(), rows.Where(r => r.Workload == workload).Select(r => r.System).Order());
            Assert.DoesNotContain(rows, r => r.Workload.StartsWith(workload + "-", StringComparison.Ordinal) && r.Workload != workload + "-10m");
        }

        Assert.Contains(("grafana-timeseries-6-threads", "ingest"), rows);
        Assert.Contains(("grafana-timeseries-10m-6-threads", "ingest"), rows);
        foreach (var shape in QueryWorkload.Shapes)
        {
            Assert.Contains((shape.Name, "duckdb"), rows);
            Assert.Contains((shape.Name + "-2-threads", "duckdb"), rows);
            Assert.Contains((shape.Name, "ingest"), rows);
        }
    }

    [Fact]
    public void Leaving_out_the_ten_million_order_pass_drops_only_its_rows()
    {
        var rows = JsonRows(QueriesCommand.Passes(new BenchmarkArguments { Seed = 1 }, tenMillion: false));

        Assert.DoesNotContain(rows, r => r.Workload.Contains("-10m", StringComparison.Ordinal));
        Assert.Contains(("mr-top-companies", "duckdb"), rows);
        Assert.Contains(("grafana-timeseries-6-threads", "ingest"), rows);
    }

    public void Dispose() => _directory.Dispose();

    /// <summary>A measurement for every cell of every system of every pass, and each pass's Grafana refresh, through the report's JSON.</summary>
    private List<(string Workload, string System)> JsonRows(IReadOnlyList<QueryPass> passes)
    {
        var measurements = new List<QueryMeasurement>();
        foreach (var pass in passes)
        {
            foreach (var name in pass.Systems)
            {
                var directory = Path.Combine(_directory.Path, $"{pass.Label}-{name}");
                Directory.CreateDirectory(directory);
                using var system = pass.Create(name, directory);
                measurements.AddRange(pass.Cells(system).Select(c => new QueryMeasurement(c.Workload.Name, c.Row, c.Threads, 1, 2, 3, 4)));
            }

            if (pass.Grafana is { } grafana)
            {
                measurements.Add(new QueryMeasurement(grafana, QueriesCommand.Ingest, GrafanaTimeseriesWorkload.Panels.Length, 1, 2, 3, 4));
            }
        }

        var path = Path.Combine(_directory.Path, "queries.json");
        QueriesReport.WriteJson(path, measurements);
        using var json = JsonDocument.Parse(File.ReadAllText(path));
        return [.. json.RootElement.EnumerateArray().Select(r => (r.GetProperty("workload").GetString()!, r.GetProperty("system").GetString()!))];
    }
}
