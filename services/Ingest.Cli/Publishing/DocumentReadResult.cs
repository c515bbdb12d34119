namespace Ingest.Cli.Publishing;

/// <summary>
/// The documents of an input, or what is wrong with it. Never both: an input with any error yields
/// no documents, so a half-valid file is never half published.
/// </summary>
internal sealed class DocumentReadResult
{
    private DocumentReadResult(IReadOnlyList<InputDocument> documents, IReadOnlyList<InputError> errors)
    {
        Documents = documents;
        Errors = errors;
    }

    public IReadOnlyList<InputDocument> Documents { get; }

    public IReadOnlyList<InputError> Errors { get; }

    public bool Succeeded => Errors.Count == 0;

    public static DocumentReadResult From(IReadOnlyList<InputDocument> documents, IReadOnlyList<InputError> errors) =>
        errors.Count == 0 ? new(documents, []) : new([], errors);
}
