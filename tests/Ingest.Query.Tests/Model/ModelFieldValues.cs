namespace Ingest.Query.Tests.Model;

/// <summary>
/// What a field's path reaches in one document, as the index sees it: the values of the field's type in document order
/// (keyword and text: folded UTF-8 bytes, text one per word; number: double; datetime: UTC ticks; bool), and whether a
/// missing property or a null was met on the way.
/// </summary>
internal sealed record ModelFieldValues(List<object> Values, bool HasNull)
{
    public bool Exists => Values.Count > 0;
}
