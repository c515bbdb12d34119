using Ingest.Indexing.Storage;

namespace Ingest.Query.Execution;

/// <summary>The kinds of posting-list reads a leaf of the filter makes.</summary>
internal enum LeafKind
{
    /// <summary>The entries holding any of the terms (<c>=</c>, <c>in</c>, <c>search</c>).</summary>
    Lookup,

    /// <summary>Terms in [From, To), or from From on when To is null.</summary>
    Range,
    Prefix,
    Exists,
    Nulls,
    All,

    /// <summary>Document ids (folded as the store folds them), any of <see cref="LeafFilter.Ids"/>.</summary>
    Ids,
    IdPrefix,
}

/// <summary>One read of the index: a lookup of terms, a range, a prefix, exists, nulls, every entry, or document ids.</summary>
internal sealed class LeafFilter(LeafKind kind, int fieldOrdinal, string detail) : FilterNode
{
    public LeafKind Kind => kind;

    public int Field => fieldOrdinal;

    public IReadOnlyList<byte[]> Terms { get; init; } = [];

    public byte[] From { get; init; } = [];

    public byte[]? To { get; init; }

    public IReadOnlyList<string> Ids { get; init; } = [];

    /// <summary>A range over a number or datetime field with one value per entry: it may read the column (<see cref="IndexReader.RangeOfSingleValues"/>).</summary>
    public bool SingleValues { get; init; }

    public override void Evaluate(IndexReader reader, List<long> result, CancellationToken ct)
    {
        switch (kind)
        {
            case LeafKind.Lookup when Terms.Count == 1:
                reader.Lookup(fieldOrdinal, Terms[0], result);
                break;
            case LeafKind.Lookup:
                LookupMany(reader, result, ct);
                break;
            case LeafKind.Range when SingleValues:
                reader.RangeOfSingleValues(fieldOrdinal, From, To ?? [], To != null, result);
                break;
            case LeafKind.Range when To == null:
                reader.RangeFrom(fieldOrdinal, From, result);
                break;
            case LeafKind.Range:
                reader.Range(fieldOrdinal, From, To, result);
                break;
            case LeafKind.Prefix:
                reader.Prefix(fieldOrdinal, From, result);
                break;
            case LeafKind.Exists:
                reader.Exists(fieldOrdinal, result);
                break;
            case LeafKind.Nulls:
                reader.Nulls(fieldOrdinal, result);
                break;
            case LeafKind.All:
                reader.AllEntries(result);
                break;
            case LeafKind.Ids:
                foreach (var id in Ids)
                {
                    ct.ThrowIfCancellationRequested();
                    if (id.Length > 0 && reader.TryGetEntry(id, out var entry))
                    {
                        result.Add(entry);
                    }
                }

                SortDistinct(result);
                break;
            case LeafKind.IdPrefix:
                reader.DocumentIdPrefix(Ids[0], result);
                break;
        }
    }

    public override QueryPlanStep Describe(IndexReader? reader, CancellationToken ct) =>
        new(kind.ToString().ToLowerInvariant() switch { "idprefix" => "id-prefix", "all" => "all-entries", var k => k }, detail, SizeIn(reader, ct), []);

    /// <summary>One posting list per term (an <c>in</c> or <c>search</c> of many): the token is looked at between them.</summary>
    private void LookupMany(IndexReader reader, List<long> result, CancellationToken ct)
    {
        var lists = new List<long>[Terms.Count];
        try
        {
            for (var i = 0; i < lists.Length; i++)
            {
                ct.ThrowIfCancellationRequested();
                lists[i] = EntryListPool.Rent();
                reader.Lookup(fieldOrdinal, Terms[i], lists[i]);
            }

            EntrySets.Union(lists, result, ct);
        }
        finally
        {
            foreach (var list in lists)
            {
                EntryListPool.Return(list);
            }
        }
    }

    private static void SortDistinct(List<long> list)
    {
        list.Sort();
        var span = System.Runtime.InteropServices.CollectionsMarshal.AsSpan(list);
        var n = 0;
        for (var i = 0; i < span.Length; i++)
        {
            if (n == 0 || span[n - 1] != span[i])
            {
                span[n++] = span[i];
            }
        }

        list.RemoveRange(n, span.Length - n);
    }
}
