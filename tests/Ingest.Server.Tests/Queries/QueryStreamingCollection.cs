namespace Ingest.Server.Tests.Queries;

/// <summary>Runs the streaming test with no other test class at the same time (its heap measurement needs quiet).</summary>
[CollectionDefinition(QueryStreamingTests.Collection, DisableParallelization = true)]
public sealed class QueryStreamingCollection;
