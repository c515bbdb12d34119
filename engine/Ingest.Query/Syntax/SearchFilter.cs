namespace Ingest.Query.Syntax;

/// <summary><c>search(Field, 'words')</c> on a text field: documents holding any of the words (tokenized as the index tokenizes).</summary>
public sealed record SearchFilter(FieldRef Field, QueryValue Words, SourcePosition Position) : QueryFilter(Position);
