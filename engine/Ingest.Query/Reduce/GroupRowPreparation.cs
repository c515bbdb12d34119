using Ingest.Query.Binding;
using Ingest.Query.Execution;
using Ingest.Query.Syntax;

namespace Ingest.Query.Reduce;

/// <summary>The one step <see cref="QueryExecutor.Prepare"/> takes for a map-reduce index's rows, kept here so the executor's edit is one call.</summary>
internal static class GroupRowPreparation
{
    public static PreparedQuery Prepare(PreparedQuery prepared, QueryParameters parameters, string? continuation)
    {
        var rows = GroupRowBinder.Bind(prepared.Query, prepared.Definition!, parameters);
        if (continuation != null)
        {
            var resume = GroupContinuation.Decode(continuation);
            if (!string.Equals(resume.Source, prepared.SourceName, StringComparison.Ordinal) || resume.Fingerprint != prepared.DefinitionFingerprint)
            {
                throw new QueryException($"the continuation token was made by a query of '{resume.Source}' or an earlier definition of it; run the query again without it");
            }

            rows.Resume = resume;
        }

        prepared.GroupRows = rows;
        prepared.Shape = QueryResultShape.Aggregates;
        prepared.Columns = rows.OutputColumns;
        return prepared;
    }
}
