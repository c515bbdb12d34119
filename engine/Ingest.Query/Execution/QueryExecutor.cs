using System.Runtime.CompilerServices;
using System.Security.Cryptography;
using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Paths;
using Ingest.Indexing.Storage;
using Ingest.Query.Aggregation;
using Ingest.Query.Binding;
using Ingest.Query.Syntax;

namespace Ingest.Query.Execution;

/// <summary>
/// Runs parsed queries against an index (or, for a query naming no field, a collection of the document store).
/// <see cref="Prepare"/> binds and plans (every client error is a <see cref="QueryException"/> naming its position),
/// <see cref="Run"/> evaluates the filter against a reader and returns a page that streams its rows. Thread-safe: one per server.
/// </summary>
public sealed partial class QueryExecutor
{
    private const int MinNextBatch = 64;

    private static readonly ConditionalWeakTable<IndexDefinition, object> DefinitionFingerprints = new();

    private readonly DocumentStore _store;
    private long _documentReads;

    public QueryExecutor(DocumentStore store)
    {
        ArgumentNullException.ThrowIfNull(store);
        _store = store;
    }

    /// <summary>Documents read from the store for results, since the runner was made (tests check that a page reads only its rows).</summary>
    internal long DocumentReads => Interlocked.Read(ref _documentReads);

    /// <summary>
    /// Binds <paramref name="query"/> to <paramref name="definition"/> (null: a collection scan of the query's collection,
    /// for queries that name no field) with its parameters and an optional continuation token from a previous page.
    /// </summary>
    /// <exception cref="QueryException">An unknown field, a value of the wrong type, a missing parameter, a bad token.</exception>
    public PreparedQuery Prepare(ParsedQuery query, IndexDefinition? definition, QueryParameters parameters, string? continuation)
    {
        ArgumentNullException.ThrowIfNull(query);
        ArgumentNullException.ThrowIfNull(parameters);
        if (definition == null && query.Source.Kind == QuerySourceKind.Index)
        {
            throw new QueryException(query.Source.Position, $"no index named '{query.Source.Name}'");
        }

        var prepared = definition == null
            ? new PreparedQuery(query, null, "collection/" + query.Source.Name) { Collection = query.Source.Name }
            : new PreparedQuery(query, definition, definition.Name) { DefinitionFingerprint = DefinitionFingerprintOf(definition) };
        prepared.Offset = query.Offset == null ? 0 : parameters.ResolveCount(query.Offset, "offset");
        prepared.Limit = query.Limit == null ? null : parameters.ResolveCount(query.Limit, "limit");
        if (definition?.Reduce != null && query.Source.Kind == QuerySourceKind.Index)
        {
            return Reduce.GroupRowPreparation.Prepare(prepared, parameters, continuation);
        }

        if (IsAggregating(query))
        {
            BindAggregates(prepared, parameters);
        }
        else
        {
            BindOrder(prepared);
            BindOutput(prepared);
        }

        if (query.Where != null)
        {
            if (definition == null)
            {
                prepared.IdFilter = IdPredicate.Bind(query.Where, parameters, query.Source.Name);
            }
            else
            {
                prepared.Filter = FilterBinder.Bind(query.Where, definition, parameters);
            }
        }

        if (continuation != null)
        {
            prepared.Resume = CheckContinuation(prepared, ContinuationToken.Decode(continuation));
        }

        return prepared;
    }

    /// <summary>A collection aggregation answered by combining a map-reduce index's groups (<see cref="Reduce.ReaggregatedQuery"/>).</summary>
    internal PreparedQuery PrepareCombined(Reduce.ReaggregationPlan plan, QueryParameters parameters)
    {
        var prepared = new PreparedQuery(plan.Query, plan.Definition, plan.Definition.Name) { DefinitionFingerprint = DefinitionFingerprintOf(plan.Definition) };
        var combined = new Reduce.ReaggregatedQuery(plan, this, parameters);
        prepared.Reaggregation = combined;
        prepared.Shape = plan.Aggregation.IsFacets ? QueryResultShape.Facets : QueryResultShape.Aggregates;
        prepared.Columns = combined.OutputColumns;
        return prepared;
    }

    /// <summary>
    /// A query that matches nothing, for <paramref name="reason"/>: no index is read or made; it answers its shape
    /// (the documents, or a projection's columns) with no rows.
    /// </summary>
    internal PreparedQuery PrepareNothing(ParsedQuery query, QueryParameters parameters, string reason)
    {
        var prepared = new PreparedQuery(query, null, "collection/" + query.Source.Name) { Collection = query.Source.Name, NothingReason = reason };
        prepared.Offset = query.Offset == null ? 0 : parameters.ResolveCount(query.Offset, "offset");
        prepared.Limit = query.Limit == null ? null : parameters.ResolveCount(query.Limit, "limit");
        if (IsAggregating(query))
        {
            prepared.Shape = QueryResultShape.Aggregates;
        }
        else
        {
            BindOutput(prepared);
        }

        return prepared;
    }

    /// <summary>
    /// Runs a prepared query against <paramref name="reader"/> (the index's reader; null for a collection scan), which
    /// must stay open until the results are disposed. Evaluates the filter now; rows are read as they are written.
    /// </summary>
    /// <exception cref="QueryException">The continuation token comes from a build of the index that has been replaced.</exception>
    public QueryResults Run(PreparedQuery prepared, IndexReader? reader, CancellationToken ct)
    {
        ArgumentNullException.ThrowIfNull(prepared);
        ct.ThrowIfCancellationRequested(); // a budget spent choosing or waiting: the filter would not look before its first list
        if (prepared.IsCollectionScan)
        {
            return RunCollectionScan(prepared, ct);
        }

        ArgumentNullException.ThrowIfNull(reader);
        if (prepared.GroupRows != null || prepared.Reaggregation != null)
        {
            return new QueryResults(this, prepared, reader, _store.BeginRead(), null, null, [], 0, ct);
        }

        if (prepared.Resume is { Kind: ContinuationKind.Index } resume)
        {
            CheckSameBuild(prepared, resume, reader);
        }

        var matches = EntryListPool.Rent();
        List<long>? columnKeys = null;
        var columnField = -1;
        var keys = new SortKeySource[prepared.Aggregation == null ? prepared.Order.Length : 0];
        DocumentReader? documents = null;
        EntryCandidates? candidates = null;
        try
        {
            documents = _store.BeginRead();
            var agrees = (FirstPageSize(prepared) > 0 || IsIdProjection(prepared)) && StoreAgrees(prepared, reader, documents);
            var checkIds = !agrees;

            // An unfiltered order by F limit k walks F's terms and never needs every entry (the total is the entry count).
            var walk = prepared.Filter == null && CanWalkTerms(prepared);
            long total;
            if (walk)
            {
                total = reader.EntryCount;
            }
            else if (FirstPageSize(prepared) is > 0 and var firstPage && prepared.Filter is LeafFilter { Kind: LeafKind.Range, SingleValues: true } firstOfRange
                     && (agrees || IsIdProjection(prepared))
                     && FirstOfRange(prepared, firstOfRange, firstPage, agrees, reader, documents, matches) is { } rangeTotal)
            {
                total = rangeTotal;
                checkIds = false; // the kept entries were checked (FirstOfRange), and the dead ones dropped
            }
            else if (prepared.Filter == null)
            {
                reader.AllEntries(matches);
                total = matches.Count;
            }
            else if (prepared.Filter is LeafFilter { Kind: LeafKind.Range, SingleValues: true } range
                     && prepared.Aggregation?.ReadsColumnOf(range.Field, out _) == true)
            {
                // The aggregation reads the range's field: the range hands it each match's value, from the column or the terms (IndexReader.ColumnShare decides which).
                columnKeys = EntryListPool.Rent();
                reader.RangeOfSingleValues(range.Field, range.From, range.To ?? [], range.To != null, matches, columnKeys);
                columnField = range.Field;
                total = matches.Count;
            }
            else
            {
                prepared.Filter.Evaluate(reader, matches, ct);
                total = matches.Count;
            }

            if (prepared.Aggregation == null)
            {
                var resumeKeys = prepared.Resume?.Keys;
                for (var i = 0; i < keys.Length; i++)
                {
                    keys[i] = new SortKeySource(prepared.Order[i], reader, resumeKeys?[i], ct);
                }

                long? after = prepared.Resume?.Last;
                if (keys.Length == 0)
                {
                    candidates = new EntryOrderCandidates(matches, after);
                }
                else
                {
                    var page = prepared.Limit is { } limit ? (long)(prepared.Resume == null ? prepared.Offset : 0) + limit : matches.Count;
                    var first = (int)Math.Min(total, page + 1);
                    var next = Math.Max(MinNextBatch, prepared.Limit ?? 0);
                    candidates = walk || (CanWalkTerms(prepared) && TermWalkCandidates.Fits(keys[0].Spec, matches.Count, reader.EntryCount, first))
                        ? new TermWalkCandidates(reader, keys[0].Spec, matches, !walk, prepared.Resume?.Keys[0], after, first, next, ct)
                        : new SortedCandidates(matches, keys, after, Math.Max(1, first), next, ct);
                }
            }

            return new QueryResults(this, prepared, reader, documents, matches, candidates, keys, total, ct)
            {
                ColumnKeys = columnKeys,
                ColumnField = columnField,
                IdsFromIndex = IsIdProjection(prepared),
                IdsChecked = checkIds,
            };
        }
        catch
        {
            EntryListPool.Return(columnKeys);
            documents?.Dispose();
            candidates?.Dispose();
            foreach (var key in keys)
            {
                key?.Dispose();
            }

            EntryListPool.Return(matches);
            throw;
        }
    }

    /// <summary>
    /// A range's page in entry order from its first entries only (and the range's size), or null when that page cannot
    /// be told from them and <paramref name="matches"/> is left empty for the full match list. When the store agrees no
    /// row will be skipped, so the page's own entries suffice. Otherwise (writes arriving since the index snapshot) a
    /// slack of entries is kept beyond them, and they are checked against the store as the rows will be (only for
    /// <c>select Id</c>, whose check replaces the document read; rows that read their documents anyway measured slower
    /// checked twice than paged from the full list, so they take the full list): if too few are
    /// live to fill the page with one entry after it, the full list pages it as before; if enough are, the dead ones are
    /// dropped from <paramref name="matches"/> and the page's rows need no second check.
    /// </summary>
    private static long? FirstOfRange(
        PreparedQuery prepared, LeafFilter range, int firstPage, bool agrees, IndexReader reader, DocumentReader documents, List<long> matches)
    {
        var requested = agrees ? firstPage : firstPage + Math.Max(MinFirstPageSlack, firstPage / 2);
        var total = reader.FirstOfRangeOfSingleValues(range.Field, range.From, range.To ?? [], range.To != null, prepared.Resume?.Last ?? long.MinValue, requested, matches);
        if (agrees || EntryLiveness.FillsPage(reader, documents, matches, requested, prepared.Resume == null ? prepared.Offset : 0, prepared.Limit!.Value, prepared.Resume?.BoundEtag))
        {
            return total;
        }

        matches.Clear();
        return null;
    }

    /// <summary>Entries kept beyond a page when the store may have deleted some of them since the index snapshot.</summary>
    private const int MinFirstPageSlack = 32;

    /// <summary>
    /// Whether every entry of the index snapshot is a live document of the store snapshot, at the version indexed, so
    /// writing the rows skips none: the index has indexed the store's last change (a delete since would be a later
    /// one), no document carries an expiry (reads hide expired ones before they are deleted), and no document is newer
    /// than a continuation's bound. A quiet or caught-up store; while writes arrive the rows check the store as always.
    /// </summary>
    private static bool StoreAgrees(PreparedQuery prepared, IndexReader reader, DocumentReader documents)
    {
        var last = documents.LastEtag;
        return last == reader.LastIndexedEtag
            && (prepared.Resume == null || last <= prepared.Resume.BoundEtag)
            && !documents.AnyExpiring;
    }

    /// <summary>
    /// Entries a page in entry order needs (offset, limit and one more to know whether more follow) when that page is
    /// small enough for a bounded heap (<see cref="MaxFirstPage"/>); 0 when the query is not such a page.
    /// </summary>
    private static int FirstPageSize(PreparedQuery prepared)
    {
        if (prepared.Aggregation != null || prepared.Order.Length > 0 || prepared.Limit is not { } limit)
        {
            return 0;
        }

        var page = (long)(prepared.Resume == null ? prepared.Offset : 0) + limit + 1;
        return page <= MaxFirstPage ? (int)page : 0;
    }

    /// <summary>Past this page size a range's matches are listed and paged as any filter's (the heap would cost more than it saves).</summary>
    private const int MaxFirstPage = 4096;

    /// <summary>A projection of the document id alone (<c>select Id</c>): the index's entries hold it.</summary>
    private static bool IsIdProjection(PreparedQuery prepared)
    {
        if (prepared.Shape != QueryResultShape.Projection)
        {
            return false;
        }

        foreach (var item in prepared.Projection)
        {
            if (item.Path != null)
            {
                return false;
            }
        }

        return true;
    }

    /// <summary>A page (limit) ordered by one number, datetime, keyword or bool field: its terms can be walked in order.</summary>
    private static bool CanWalkTerms(PreparedQuery prepared) =>
        prepared.Aggregation == null && prepared.Limit != null && prepared.Order is [{ Kind: SortKeyKind.Column or SortKeyKind.TermRank }];

    /// <summary>The plan of a prepared query; with a reader, each step's size there (explain evaluates every step, observing <paramref name="ct"/>).</summary>
    public QueryPlan Explain(PreparedQuery prepared, IndexReader? reader = null, CancellationToken ct = default)
    {
        ArgumentNullException.ThrowIfNull(prepared);
        var steps = new List<QueryPlanStep>();
        if (prepared.NothingReason is { } reason)
        {
            return new QueryPlan(prepared.SourceName, [new QueryPlanStep("nothing", reason, 0, [])]);
        }

        if (prepared.GroupRows != null)
        {
            return new QueryPlan(prepared.SourceName, [new QueryPlanStep("map-reduce-groups", prepared.GroupRows.Describe(), reader?.GroupCount, [])]);
        }

        if (prepared.Reaggregation != null)
        {
            return new QueryPlan(prepared.SourceName, [new QueryPlanStep("map-reduce-combine", prepared.Reaggregation.Describe(), reader?.GroupCount, [])]);
        }

        if (prepared.IsCollectionScan)
        {
            steps.Add(new QueryPlanStep("collection-scan", $"the documents of collection '{prepared.Collection}' in etag order", null, []));
        }
        else
        {
            steps.Add(prepared.Filter?.Describe(reader, ct) ?? new QueryPlanStep("all-entries", "every entry of the index", reader?.EntryCount, []));
        }

        if (prepared.Aggregation != null)
        {
            steps.Add(new QueryPlanStep("aggregate", $"{prepared.Shape.ToString().ToLowerInvariant()} over the match set from posting lists and columns", null, []));
        }
        else if (prepared.Order.Length > 0)
        {
            var keys = string.Join(", ", Array.ConvertAll(prepared.Order, k => $"{k.Name} {(k.Descending ? "desc" : "asc")} ({Describe(k.Kind)})"));
            steps.Add(prepared.Limit is { } limit
                ? new QueryPlanStep("top-k", $"k = {(long)prepared.Offset + limit} by {keys}, ties by entry{(CanWalkTerms(prepared) ? $"; {prepared.Order[0].Name}'s terms walked in order, stopping after k matches (unless the filter keeps few entries)" : "")}", (long)prepared.Offset + limit, [])
                : new QueryPlanStep("sort", $"every match by {keys}, ties by entry", null, []));
        }
        else if (!prepared.IsCollectionScan)
        {
            steps.Add(new QueryPlanStep("entry-order", "matches in index entry order", null, []));
        }

        if (prepared.Aggregation == null)
        {
            var page = prepared.Limit is { } l ? $"offset {prepared.Offset}, limit {l}" : $"offset {prepared.Offset}, no limit";
            steps.Add(prepared.Shape == QueryResultShape.Projection
                ? new QueryPlanStep("projection", $"read {string.Join(", ", Array.ConvertAll(prepared.Projection, p => p.Name))} from each document of the page ({page})", null, [])
                : new QueryPlanStep("documents", $"read each document of the page ({page})", null, []));
        }

        return new QueryPlan(prepared.SourceName, steps);
    }

    internal void CountDocumentRead() => Interlocked.Increment(ref _documentReads);

    /// <summary>A stable 64-bit hash (FNV-1a) for tokens: the same across processes, unlike string hash codes.</summary>
    internal static ulong Fingerprint(ReadOnlySpan<byte> bytes)
    {
        var hash = 14695981039346656037UL;
        foreach (var b in bytes)
        {
            hash = (hash ^ b) * 1099511628211UL;
        }

        return hash;
    }

    private static bool IsAggregating(ParsedQuery query)
    {
        if (query.GroupBy.Count > 0)
        {
            return true;
        }

        foreach (var item in query.Select)
        {
            if (item is AggregateSelect or FacetSelect)
            {
                return true;
            }
        }

        return false;
    }

    private static void BindAggregates(PreparedQuery prepared, QueryParameters parameters)
    {
        var query = prepared.Query;
        if (prepared.Definition == null)
        {
            // Without an index only a count of the collection can be answered.
            if (query.Select is [AggregateSelect { Function: AggregateFunction.Count, Field: null } count] && query.GroupBy.Count == 0 && query.OrderBy.Count == 0)
            {
                prepared.CountOnlyName = count.Name;
                prepared.Shape = QueryResultShape.Aggregates;
                prepared.Columns = [new QueryColumn(count.Name, QueryColumnType.Number)];
                return;
            }

            throw new QueryException(query.Select.Count > 0 ? query.Select[0].Position : query.Source.Position, "this aggregation needs an index; a collection scan answers only select count()");
        }

        var aggregation = AggregationQuery.TryBind(query, prepared.Definition, parameters.GetJson)
            ?? throw new QueryException(query.Source.Position, "the query has no group by, aggregate or facet");
        prepared.Aggregation = aggregation;
        prepared.Shape = aggregation.IsFacets ? QueryResultShape.Facets : QueryResultShape.Aggregates;
        var columns = new QueryColumn[aggregation.Columns.Count];
        for (var i = 0; i < columns.Length; i++)
        {
            var column = aggregation.Columns[i];
            columns[i] = new QueryColumn(column.Name, column.Type switch
            {
                AggregationColumnType.String => QueryColumnType.String,
                AggregationColumnType.Number => QueryColumnType.Number,
                AggregationColumnType.DateTime => QueryColumnType.DateTime,
                AggregationColumnType.Bool => QueryColumnType.Bool,
                _ => QueryColumnType.Json,
            });
        }

        prepared.Columns = columns;
    }

    private static void BindOrder(PreparedQuery prepared)
    {
        var query = prepared.Query;
        if (query.OrderBy.Count == 0)
        {
            return;
        }

        if (prepared.Definition == null)
        {
            throw new QueryException(query.OrderBy[0].Position, $"order by needs an index; collection scans (collection/{query.Source.Name}) return documents in etag order");
        }

        var order = new SortKeySpec[query.OrderBy.Count];
        for (var i = 0; i < order.Length; i++)
        {
            var item = query.OrderBy[i];
            if (item.Field == null)
            {
                throw new QueryException(item.Position, "order by an aggregate needs group by or an aggregate in select");
            }

            var field = FieldBinder.Bind(item.Field, prepared.Definition);
            order[i] = new SortKeySpec(KindOf(field, item), field.Ordinal, item.Descending, field.Name) { SingleValued = FilterBinder.HoldsOneValue(field) };
        }

        prepared.Order = order;
    }

    private static SortKeyKind KindOf(BoundField field, OrderByItem item)
    {
        if (field.IsDocumentId)
        {
            return item.Type == OrderByType.Number ? throw OrderAs(item, field, "number") : SortKeyKind.IdRank;
        }

        switch (field.Type)
        {
            case IndexFieldType.Number:
            case IndexFieldType.DateTime:
                return item.Type == OrderByType.String ? throw OrderAs(item, field, "string") : SortKeyKind.Column;
            case IndexFieldType.Keyword:
            case IndexFieldType.Bool:
                return item.Type == OrderByType.Number ? throw OrderAs(item, field, "number") : SortKeyKind.TermRank;
            default:
                throw new QueryException(item.Field!.Position, $"cannot order by '{field.Name}': it is a text field (its words are indexed, not its value)");
        }
    }

    private static QueryException OrderAs(OrderByItem item, BoundField field, string type) =>
        new(item.Field!.Position, $"cannot order '{field.Name}' as {type}: it is {(field.IsDocumentId ? "the document id" : "a " + LiteralText.TypeName(field.Type))} and orders as one");

    private static void BindOutput(PreparedQuery prepared)
    {
        var query = prepared.Query;
        if (query.Select.Count == 0)
        {
            prepared.Shape = QueryResultShape.Documents;
            prepared.Columns =
            [
                new QueryColumn("id", QueryColumnType.String),
                new QueryColumn("collection", QueryColumnType.String),
                new QueryColumn("etag", QueryColumnType.Number),
                new QueryColumn("lastModified", QueryColumnType.DateTime),
                new QueryColumn("document", QueryColumnType.Json),
            ];
            return;
        }

        var items = new ProjectionItem[query.Select.Count];
        var columns = new QueryColumn[items.Length];
        for (var i = 0; i < items.Length; i++)
        {
            var select = (FieldSelect)query.Select[i];
            var field = select.Field;
            if (field.IsDocumentId)
            {
                items[i] = new ProjectionItem(select.Name, null, false);
                columns[i] = new QueryColumn(select.Name, QueryColumnType.String);
                continue;
            }

            // An index field's name reads its path (Customer -> Customer.Name); any other path is read as written.
            BoundField? bound = null;
            var path = prepared.Definition != null && FieldBinder.TryBind(field, prepared.Definition, out bound) ? bound.Definition!.Path : field.Path;
            if (!JsonPathCompiler.TryCompile(path, out var compiled, out var error))
            {
                throw new QueryException(field.Position, $"'{field.Path}' is not a valid path: {error}");
            }

            var isArray = compiled.Steps.Any(s => s.Kind == JsonPathStepKind.Elements);
            items[i] = new ProjectionItem(select.Name, compiled, isArray);
            columns[i] = new QueryColumn(select.Name, isArray || bound == null ? QueryColumnType.Json : ColumnTypeOf(bound.Type));
        }

        prepared.Shape = QueryResultShape.Projection;
        prepared.Projection = items;
        prepared.Columns = columns;
    }

    private static QueryColumnType ColumnTypeOf(IndexFieldType type) => type switch
    {
        IndexFieldType.Number => QueryColumnType.Number,
        IndexFieldType.DateTime => QueryColumnType.DateTime,
        IndexFieldType.Bool => QueryColumnType.Bool,
        _ => QueryColumnType.String,
    };

    private static ContinuationToken CheckContinuation(PreparedQuery prepared, ContinuationToken token)
    {
        if (prepared.Aggregation != null || prepared.CountOnlyName != null)
        {
            throw new QueryException("aggregated results come in one page (use limit and offset); they take no continuation token");
        }

        var expectedKind = prepared.IsCollectionScan ? ContinuationKind.Collection : ContinuationKind.Index;
        if (token.Kind != expectedKind || !string.Equals(token.Source, prepared.SourceName, StringComparison.Ordinal))
        {
            throw new QueryException($"the continuation token belongs to a query on '{token.Source}', not to this query on '{prepared.SourceName}'");
        }

        if (token.DefinitionFingerprint != prepared.DefinitionFingerprint)
        {
            throw Rebuilt(prepared);
        }

        var sameOrder = token.Order.Count == (expectedKind == ContinuationKind.Index ? prepared.Order.Length : 0);
        for (var i = 0; sameOrder && i < token.Order.Count; i++)
        {
            var (a, b) = (token.Order[i], prepared.Order[i]);
            sameOrder = a.Kind == b.Kind && a.Field == b.Field && a.Descending == b.Descending;
        }

        return sameOrder ? token : throw new QueryException("the continuation token belongs to a query with another order by; pass it with the query that returned it");
    }

    /// <summary>
    /// Entry ids are numbered per build: a token's last entry must still hold the document it held (or lie within
    /// the ids this build assigned), else the index was rebuilt (reset) since the first page.
    /// </summary>
    private static void CheckSameBuild(PreparedQuery prepared, ContinuationToken token, IndexReader reader)
    {
        if (token.Last > reader.MaxEntryId
            || (token.Anchor != 0 && reader.TryReadDocumentKey(token.Last, out var key) && Fingerprint(key) != token.Anchor))
        {
            throw Rebuilt(prepared);
        }
    }

    private static QueryException Rebuilt(PreparedQuery prepared) =>
        new($"the continuation token comes from an earlier build of index '{prepared.SourceName}', which has been rebuilt since the first page; run the query again without the token");

    /// <summary>
    /// Once per definition object (a definition is immutable): serializing it to JSON and hashing that with SHA-256 on
    /// every query showed in the profile of the small shapes, for an answer that never changes.
    /// </summary>
    private static ulong DefinitionFingerprintOf(IndexDefinition definition) =>
        (ulong)DefinitionFingerprints.GetValue(definition, static d => BitConverter.ToUInt64(SHA256.HashData(IndexDefinitionJson.ToUtf8(d)), 0));

    private static string Describe(SortKeyKind kind) => kind switch
    {
        SortKeyKind.Column => "column",
        SortKeyKind.TermRank => "term order",
        _ => "id order",
    };

    private QueryResults RunCollectionScan(PreparedQuery prepared, CancellationToken ct)
    {
        var documents = _store.BeginRead();
        try
        {
            long total = 0;
            if (prepared.MatchesNothing)
            {
                // Nothing to count.
            }
            else if (prepared.IdFilter != null)
            {
                // Counting what an id condition matches takes a pass over the collection's ids.
                var folded = new byte[QueryResults.FoldedIdBufferSize];
                var seen = 0;
                foreach (var document in documents.GetCollection(prepared.Collection!))
                {
                    if ((++seen & CancellationCheck.Mask) == 0)
                    {
                        ct.ThrowIfCancellationRequested();
                    }

                    var length = IndexDocumentKey.Write(document.IdUtf8, folded);
                    total += length >= 0 && prepared.IdFilter.Matches(folded.AsSpan(0, length)) ? 1 : 0;
                }
            }
            else
            {
                foreach (var collection in documents.GetStats().Collections)
                {
                    if (string.Equals(collection.Name, prepared.Collection, StringComparison.OrdinalIgnoreCase))
                    {
                        total = collection.Count;
                    }
                }
            }

            return new QueryResults(this, prepared, null, documents, null, null, [], total, ct);
        }
        catch
        {
            documents.Dispose();
            throw;
        }
    }
}
