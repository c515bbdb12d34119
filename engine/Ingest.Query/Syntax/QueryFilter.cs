namespace Ingest.Query.Syntax;

/// <summary>A <c>where</c> condition. <see cref="Position"/> is where the condition starts.</summary>
public abstract record QueryFilter(SourcePosition Position);
