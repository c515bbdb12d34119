namespace Ingest.Indexing.Extraction;

/// <summary>
/// What one field gave for one document in a one-pass extraction (its terms are those of the buffer tagged with the
/// field's ordinal): the same counts as <see cref="FieldExtraction"/> has.
/// </summary>
internal struct FieldTally
{
    public int TermCount;
    public int NullCount;
    public int WrongTypeCount;

    public readonly bool IsNull => NullCount > 0;
}
