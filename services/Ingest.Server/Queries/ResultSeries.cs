using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>
/// One time series of a <see cref="ResultTable"/>: its name and its points in ascending time. The name is the group's
/// key values (<c>shipped</c>, <c>shipped acme</c>), followed by the aggregate's name when the query has several
/// (<c>shipped count()</c>), or the aggregate's name alone when there is no other key (<c>sum(Total)</c>).
/// </summary>
internal sealed record ResultSeries(string Name, List<(long Time, JsonElement? Value)> Points)
{
    /// <summary>Splits a time series table: one series per value column and per combination of the other keys, in order of first appearance.</summary>
    public static IReadOnlyList<ResultSeries> From(ResultTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        if (!table.IsTimeSeries)
        {
            throw new InvalidOperationException("The results are not a time series.");
        }

        var columns = table.Columns;
        var keys = Enumerable.Range(0, columns.Count).Where(i => i != table.TimeColumn && !columns[i].IsValue).ToArray();
        var values = Enumerable.Range(0, columns.Count).Where(i => columns[i].IsValue).ToArray();
        var series = new List<ResultSeries>();
        var byName = new Dictionary<string, ResultSeries>(StringComparer.Ordinal);
        foreach (var row in table.Rows)
        {
            if (ResultValues.EpochMilliseconds(row[table.TimeColumn]) is not { } time)
            {
                continue;
            }

            var group = string.Join(' ', keys.Select(k => ResultValues.Text(row[k])));
            foreach (var value in values)
            {
                var name = keys.Length == 0 ? columns[value].Name : values.Length > 1 ? $"{group} {columns[value].Name}" : group;
                if (!byName.TryGetValue(name, out var one))
                {
                    one = new ResultSeries(name, []);
                    byName.Add(name, one);
                    series.Add(one);
                }

                one.Points.Add((time, row[value]));
            }
        }

        foreach (var one in series)
        {
            // Rows come grouped by the keys in group by order: a key before time() interleaves the series' points.
            one.Points.Sort(static (a, b) => a.Time.CompareTo(b.Time));
        }

        return series;
    }
}
