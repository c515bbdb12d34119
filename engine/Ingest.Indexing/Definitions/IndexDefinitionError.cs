namespace Ingest.Indexing.Definitions;

/// <summary>
/// One problem with a definition: <paramref name="Field"/> locates it in the JSON body
/// (<c>name</c>, <c>collections[1]</c>, <c>fields[2].path</c>, or <c>$</c> for the whole body) and
/// <paramref name="Message"/> says what is wrong, naming the index field where there is one.
/// </summary>
public sealed record IndexDefinitionError(string Field, string Message);
