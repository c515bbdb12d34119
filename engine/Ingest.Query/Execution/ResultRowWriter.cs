using System.Text.Json;
using Ingest.Documents;

namespace Ingest.Query.Execution;

/// <summary>Writes one result object: a whole document as <c>GET /docs</c> pages it, or the selected values.</summary>
internal static class ResultRowWriter
{
    public static void WriteDocument(in DocumentView document, Utf8JsonWriter writer)
    {
        writer.WriteStartObject();
        writer.WriteString("id"u8, document.IdUtf8);
        writer.WriteString("collection"u8, document.CollectionUtf8);
        writer.WriteNumber("etag"u8, document.Etag);
        writer.WriteString("lastModified"u8, document.LastModified);
        writer.WritePropertyName("document"u8);
        writer.WriteRawValue(document.Body, skipInputValidation: true); // validated when it was written
        writer.WriteEndObject();
    }

    /// <summary>A projection whose items are all the document id (<c>select Id</c>), from the id's UTF-8 bytes.</summary>
    public static void WriteIds(ReadOnlySpan<byte> idUtf8, ProjectionItem[] items, Utf8JsonWriter writer)
    {
        writer.WriteStartObject();
        foreach (var item in items)
        {
            writer.WriteString(item.Utf8Name, idUtf8);
        }

        writer.WriteEndObject();
    }

    public static void WriteProjection(in DocumentView document, ProjectionItem[] items, Utf8JsonWriter writer)
    {
        writer.WriteStartObject();
        foreach (var item in items)
        {
            writer.WritePropertyName(item.Utf8Name);
            if (item.Path == null)
            {
                writer.WriteStringValue(document.IdUtf8);
            }
            else
            {
                JsonProjection.Write(document.Body, item.Path, item.IsArray, writer);
            }
        }

        writer.WriteEndObject();
    }
}
