namespace Ingest.Indexing.Definitions;

/// <summary>How a field's values become terms; the wire form is the lower-case name (<c>datetime</c>, not <c>DateTime</c>).</summary>
public enum IndexFieldType
{
    /// <summary>A JSON string as one exact term, case-insensitive unless the field asks for exact case.</summary>
    Keyword,

    /// <summary>A JSON string split into lower-cased words, one term per word.</summary>
    Text,

    /// <summary>A JSON number (int64 or double) in one numeric order.</summary>
    Number,

    /// <summary>An ISO 8601 string or a number of epoch milliseconds, as UTC ticks.</summary>
    DateTime,

    /// <summary>A JSON <c>true</c> or <c>false</c>.</summary>
    Bool,
}
