namespace Ingest.Query.Syntax;

/// <summary><c>exists(Field)</c>: the field has at least one non-null value of the field's type.</summary>
public sealed record ExistsFilter(FieldRef Field, SourcePosition Position) : QueryFilter(Position);
