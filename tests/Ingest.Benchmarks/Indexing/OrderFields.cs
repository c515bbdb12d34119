using System.Text.Json;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// The five indexed values of one order, for the baselines: read from the JSON with a <see cref="Utf8JsonReader"/>
/// into this reused instance (keywords lower-cased, as the Ingest index's case-insensitive keywords are).
/// </summary>
internal sealed class OrderFields
{
    public string? Company { get; private set; }

    public List<string> ProductNames { get; } = [];

    public List<string> Products { get; } = [];

    public double Freight { get; private set; }

    public long OrderedAtTicks { get; private set; }

    /// <summary>Reads <paramref name="json"/>'s top-level Company, Freight and OrderedAt, and each line's ProductName and Product.</summary>
    public void Read(ReadOnlySpan<byte> json)
    {
        Company = null;
        ProductNames.Clear();
        Products.Clear();
        Freight = 0;
        OrderedAtTicks = 0;
        var reader = new Utf8JsonReader(json);
        reader.Read(); // the order's StartObject
        while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
        {
            if (reader.ValueTextEquals("Company"u8))
            {
                reader.Read();
                Company = reader.GetString()?.ToLowerInvariant();
            }
            else if (reader.ValueTextEquals("Freight"u8))
            {
                reader.Read();
                Freight = reader.GetDouble();
            }
            else if (reader.ValueTextEquals("OrderedAt"u8))
            {
                reader.Read();
                OrderedAtTicks = reader.GetDateTime().ToUniversalTime().Ticks;
            }
            else if (reader.ValueTextEquals("Lines"u8))
            {
                reader.Read();
                ReadLines(ref reader);
            }
            else
            {
                reader.Read();
                reader.Skip();
            }
        }
    }

    private void ReadLines(ref Utf8JsonReader reader)
    {
        while (reader.Read() && reader.TokenType == JsonTokenType.StartObject)
        {
            while (reader.Read() && reader.TokenType == JsonTokenType.PropertyName)
            {
                if (reader.ValueTextEquals("ProductName"u8))
                {
                    reader.Read();
                    ProductNames.Add(reader.GetString()!);
                }
                else if (reader.ValueTextEquals("Product"u8))
                {
                    reader.Read();
                    Products.Add(reader.GetString()!.ToLowerInvariant());
                }
                else
                {
                    reader.Read();
                    reader.Skip();
                }
            }
        }
    }
}
