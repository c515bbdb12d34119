using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Storage;

namespace Ingest.Query.Aggregation;

/// <summary>How aggregation rows write values: terms decoded by field type, numbers JSON can hold.</summary>
internal static class AggregationJson
{
    /// <summary>Writes an encoded term as the JSON value it stands for (a keyword as its folded text).</summary>
    public static void WriteTerm(Utf8JsonWriter writer, IndexFieldType type, ReadOnlySpan<byte> term)
    {
        switch (type)
        {
            case IndexFieldType.Number:
                WriteNumber(writer, IndexReader.DecodeNumberTerm(term));
                break;
            case IndexFieldType.DateTime:
                writer.WriteStringValue(new DateTime(IndexReader.DecodeDateTimeTerm(term), DateTimeKind.Utc));
                break;
            case IndexFieldType.Bool:
                writer.WriteBooleanValue(term[0] != 0);
                break;
            default:
                writer.WriteStringValue(term);
                break;
        }
    }

    /// <summary>A number, or null for infinity (a sum past double's range, or a JSON number beyond it): JSON has neither.</summary>
    public static void WriteNumber(Utf8JsonWriter writer, double value)
    {
        if (double.IsFinite(value))
        {
            writer.WriteNumberValue(value);
        }
        else
        {
            writer.WriteNullValue();
        }
    }
}
