using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Query.Execution;
using Ingest.Server.Queries;

namespace Ingest.Server.Grafana;

/// <summary>
/// The JSON shapes of the simPod data source's answers: time series (<c>{target, refId, datapoints}</c>), tables
/// (<c>{type: "table", columns, rows}</c>), the metric payload descriptions and the type names Grafana expects;
/// <see cref="GrafanaDataSource"/> decides what to answer, this writes it.
/// </summary>
internal static class GrafanaResponseWriter
{
    public static void WritePayload(Utf8JsonWriter writer, string name, string label, string type, string placeholder)
    {
        writer.WriteStartObject();
        writer.WriteString("name", name);
        writer.WriteString("label", label);
        writer.WriteString("type", type);
        writer.WriteString("placeholder", placeholder);
        if (type == "select")
        {
            writer.WriteBoolean("reloadMetric", false);
        }

        writer.WriteEndObject();
    }

    public static void WriteSeries(Utf8JsonWriter writer, string refId, ResultTable table)
    {
        foreach (var series in ResultSeries.From(table))
        {
            writer.WriteStartObject();
            writer.WriteString("target", series.Name);
            writer.WriteString("refId", refId);
            writer.WriteStartArray("datapoints");
            foreach (var (time, value) in series.Points)
            {
                writer.WriteStartArray();
                ResultValues.WriteCell(writer, value);
                writer.WriteNumberValue(time);
                writer.WriteEndArray();
            }

            writer.WriteEndArray();
            writer.WriteEndObject();
        }
    }

    public static void WriteTable(Utf8JsonWriter writer, string refId, ResultTable table)
    {
        writer.WriteStartObject();
        writer.WriteString("type", "table");
        writer.WriteString("refId", refId);
        writer.WriteStartArray("columns");
        foreach (var column in table.Columns)
        {
            writer.WriteStartObject();
            writer.WriteString("text", column.Name);
            writer.WriteString("type", TypeName(column.Type));
            writer.WriteEndObject();
        }

        writer.WriteEndArray();
        writer.WriteStartArray("rows");
        foreach (var row in table.Rows)
        {
            writer.WriteStartArray();
            for (var i = 0; i < row.Length; i++)
            {
                if (table.Columns[i].Type == QueryColumnType.DateTime)
                {
                    ResultValues.WriteTimeCell(writer, row[i]);
                }
                else
                {
                    ResultValues.WriteCell(writer, row[i]);
                }
            }

            writer.WriteEndArray();
        }

        writer.WriteEndArray();
        writer.WriteEndObject();
    }

    public static string TypeName(QueryColumnType type) => type switch
    {
        QueryColumnType.Number => "number",
        QueryColumnType.DateTime => "time",
        QueryColumnType.Bool => "boolean",
        _ => "string",
    };

    public static string TypeName(IndexFieldType type) => type switch
    {
        IndexFieldType.Number => "number",
        IndexFieldType.DateTime => "time",
        IndexFieldType.Bool => "boolean",
        _ => "string",
    };

    /// <summary>The answer <paramref name="write"/> writes; <paramref name="owned"/> (what it reads) is disposed once it is written.</summary>
    public static IResult Json(Action<Utf8JsonWriter> write, IReadOnlyList<IDisposable>? owned = null) => new GrafanaJsonResult(write, owned ?? []);
}
