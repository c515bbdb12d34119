namespace Ingest.Query.Syntax;

/// <summary><c>order by F</c> (the field's own order), <c>order by F as number</c>, <c>order by F as string</c>.</summary>
public enum OrderByType
{
    Default,
    Number,
    String,
}
