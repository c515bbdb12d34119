using System.Globalization;
using System.Text.Json;
using System.Text.Json.Nodes;
using Ingest.Benchmarks.Documents;

namespace Ingest.Benchmarks.Indexing;

/// <summary>
/// The churn every system applies to the indexed orders: <see cref="IndexingSizes.UpdatedPercent"/> of them get a new
/// Company and Freight (two indexed fields), <see cref="IndexingSizes.DeletedPercent"/> others are deleted, spread
/// evenly over the backlog, in dataset order.
/// </summary>
internal sealed class ChurnPlan
{
    private ChurnPlan(List<ChurnChange> changes) => Changes = changes;

    public IReadOnlyList<ChurnChange> Changes { get; }

    public int Updates => Changes.Count(c => c.NewBody is not null);

    public int Deletes => Changes.Count(c => c.NewBody is null);

    public static ChurnPlan Create(OrderDataset data, IndexingSizes sizes)
    {
        var changes = new List<ChurnChange>();
        var buffer = new MemoryStream(2048);
        for (var i = 0; i < data.Count; i++)
        {
            var slot = i % 100;
            if (slot < sizes.UpdatedPercent)
            {
                changes.Add(new ChurnChange(i, Update(data.Bodies[i], i, buffer)));
            }
            else if (slot < sizes.UpdatedPercent + sizes.DeletedPercent)
            {
                changes.Add(new ChurnChange(i, null));
            }
        }

        return new ChurnPlan(changes);
    }

    private static byte[] Update(byte[] body, int i, MemoryStream buffer)
    {
        var order = JsonNode.Parse(body)!.AsObject();
        order["Company"] = string.Create(CultureInfo.InvariantCulture, $"companies/{(i % 91) + 1}-B"); // never the old "-A"
        order["Freight"] = Math.Round(order["Freight"]!.GetValue<double>() + 1.25, 2);
        buffer.SetLength(0);
        using (var json = new Utf8JsonWriter(buffer))
        {
            order.WriteTo(json);
        }

        return buffer.ToArray();
    }
}
