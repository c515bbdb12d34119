using System.Buffers;
using System.Text;
using System.Text.Json;

namespace Ingest.Server.Queries;

/// <summary>
/// Writes a <see cref="ResultTable"/> as the flat rows Infinity reads: an array of objects (times ISO 8601 as the
/// query gives them, numbers as numbers), or CSV with a header line. A time series becomes one row per point:
/// <c>{"time": "2026-11-01T00:05:00Z", "series": "shipped", "value": 3}</c>.
/// </summary>
internal static class ResultTableWriter
{
    public static byte[] ToJsonRows(ResultTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        var buffer = new ArrayBufferWriter<byte>(4096);
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartArray();
            if (table.IsTimeSeries)
            {
                foreach (var series in ResultSeries.From(table))
                {
                    foreach (var (time, value) in series.Points)
                    {
                        writer.WriteStartObject();
                        writer.WriteString("time", DateTimeOffset.FromUnixTimeMilliseconds(time).UtcDateTime);
                        writer.WriteString("series", series.Name);
                        writer.WritePropertyName("value");
                        ResultValues.WriteCell(writer, value);
                        writer.WriteEndObject();
                    }
                }
            }
            else
            {
                foreach (var row in table.Rows)
                {
                    writer.WriteStartObject();
                    for (var i = 0; i < row.Length; i++)
                    {
                        writer.WritePropertyName(table.Columns[i].Name);
                        if (row[i] is { } value)
                        {
                            value.WriteTo(writer);
                        }
                        else
                        {
                            writer.WriteNullValue();
                        }
                    }

                    writer.WriteEndObject();
                }
            }

            writer.WriteEndArray();
        }

        return buffer.WrittenMemory.ToArray();
    }

    public static byte[] ToCsv(ResultTable table)
    {
        ArgumentNullException.ThrowIfNull(table);
        var csv = new StringBuilder();
        if (table.IsTimeSeries)
        {
            csv.Append("time,series,value\r\n");
            foreach (var series in ResultSeries.From(table))
            {
                foreach (var (time, value) in series.Points)
                {
                    csv.Append(DateTimeOffset.FromUnixTimeMilliseconds(time).UtcDateTime.ToString("yyyy-MM-dd'T'HH:mm:ss.FFF'Z'", System.Globalization.CultureInfo.InvariantCulture))
                        .Append(',').Append(Field(series.Name)).Append(',').Append(Field(ResultValues.Text(value))).Append("\r\n");
                }
            }
        }
        else
        {
            csv.AppendJoin(',', table.Columns.Select(static c => Field(c.Name))).Append("\r\n");
            foreach (var row in table.Rows)
            {
                for (var i = 0; i < row.Length; i++)
                {
                    csv.Append(i == 0 ? "" : ",").Append(Field(ResultValues.Text(row[i])));
                }

                csv.Append("\r\n");
            }
        }

        return Encoding.UTF8.GetBytes(csv.ToString());
    }

    /// <summary>RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.</summary>
    private static string Field(string text) =>
        text.AsSpan().IndexOfAny(",\"\r\n") < 0 ? text : "\"" + text.Replace("\"", "\"\"", StringComparison.Ordinal) + "\"";
}
