namespace Ingest.Indexing.Extraction;

/// <summary>
/// What one field gave for one document: its terms are <see cref="TermCount"/> terms of the buffer from
/// <see cref="FirstTerm"/>; <see cref="NullCount"/> counts the places the path met null or a missing property (the
/// document is indexed as null for this field when it is above 0); <see cref="WrongTypeCount"/> counts the values
/// skipped for having the wrong JSON type, for the index's stats. <see cref="Malformed"/> is set when the document is
/// not valid JSON: then no terms are kept and the document counts once as a wrong type.
/// </summary>
internal readonly record struct FieldExtraction(int FirstTerm, int TermCount, int NullCount, int WrongTypeCount, bool Malformed = false)
{
    public bool IsNull => NullCount > 0;
}
