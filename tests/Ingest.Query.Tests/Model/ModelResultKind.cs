namespace Ingest.Query.Tests.Model;

internal enum ModelResultKind
{
    Documents,
    Projection,
    Aggregation,
}
