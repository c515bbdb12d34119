namespace Ingest.Server.Tests.Queries;

/// <summary>The query limit tests run with no other test at the same time: one measures the process's CPU time.</summary>
[CollectionDefinition(QueryLimitsTests.Collection, DisableParallelization = true)]
public sealed class QueryLimitsCollection;
