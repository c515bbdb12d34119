namespace Ingest.Query.Syntax;

/// <summary>A projected field (or, in a grouped query, a group key).</summary>
public sealed record FieldSelect(FieldRef Field, string Name, SourcePosition Position) : SelectItem(Name, Position);
