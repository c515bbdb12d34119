using System.Globalization;
using System.Text.Json.Nodes;
using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.ScaleOut;

/// <summary>
/// The order of a documents query as a merger sees it: the query each shard runs (the sort keys and the id added as
/// hidden columns when the query projects, so every row carries what it is merged by; limit widened to offset + limit,
/// no offset), each row's keys, and the comparison that merges shards' pages. Ties between shards go to the lower
/// shard: a single node breaks them by the order it first indexed documents, which no other node shares.
/// </summary>
internal sealed class DocumentOrder
{
    private const string IdColumn = "__id";

    private readonly ParsedQuery _query;
    private readonly bool _projected;
    private readonly (string? Column, string Path, IndexFieldType? Type, bool Descending)[] _keys;

    public DocumentOrder(ParsedQuery query)
    {
        _query = query;
        _projected = query.Select.Count > 0;
        _keys = new (string?, string, IndexFieldType?, bool)[query.OrderBy.Count];
        for (var i = 0; i < _keys.Length; i++)
        {
            var field = query.OrderBy[i].Field!;
            var type = field.IsDocumentId ? (IndexFieldType?)null : ScaleOutIndex.Field(field.Path).Type;
            _keys[i] = (_projected ? "__k" + i.ToString(CultureInfo.InvariantCulture) : null, field.Path, type, query.OrderBy[i].Descending);
        }
    }

    public bool IsOrdered => _keys.Length > 0;

    /// <summary>The query a shard runs to give its first <paramref name="take"/> rows (all when null).</summary>
    public ParsedQuery ShardQuery(long? take)
    {
        var select = _query.Select.ToList();
        if (_projected)
        {
            select.Add(new FieldSelect(new FieldRef(QueryFormatter.DocumentIdPath, true, default), IdColumn, default));
            for (var i = 0; i < _keys.Length; i++)
            {
                select.Add(new FieldSelect(_query.OrderBy[i].Field!, _keys[i].Column!, default));
            }
        }

        var limit = take is { } n ? new NumberValue(n, n.ToString(CultureInfo.InvariantCulture), default) : null;
        return _query with { Select = select, Limit = limit, Offset = null };
    }

    public static string Id(JsonObject row) => (row[IdColumn] ?? row["id"])!.GetValue<string>();

    public SortValue[] Keys(JsonObject row)
    {
        var keys = new SortValue[_keys.Length];
        for (var i = 0; i < keys.Length; i++)
        {
            var (column, path, type, _) = _keys[i];
            var value = type == null ? JsonValue.Create(Id(row)) : column != null ? row[column] : row["document"]![path];
            keys[i] = SortValue.Of(value, type);
        }

        return keys;
    }

    public int Compare(SortValue[] a, SortValue[] b)
    {
        for (var i = 0; i < _keys.Length; i++)
        {
            var order = SortValue.Compare(a[i], b[i], _keys[i].Descending);
            if (order != 0)
            {
                return order;
            }
        }

        return 0;
    }

    /// <summary>The row as the client sees it: the hidden columns gone; of a document, the parts every node agrees on (etags and times are a store's own).</summary>
    public JsonObject Visible(JsonObject row)
    {
        if (!_projected)
        {
            return new JsonObject { ["id"] = row["id"]!.DeepClone(), ["document"] = row["document"]!.DeepClone() };
        }

        var visible = new JsonObject();
        foreach (var item in _query.Select)
        {
            visible[item.Name] = row[item.Name]?.DeepClone();
        }

        return visible;
    }
}
