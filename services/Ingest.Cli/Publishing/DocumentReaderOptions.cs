namespace Ingest.Cli.Publishing;

/// <summary>How to split the input into documents and where each document's id comes from.</summary>
/// <param name="Lines">JSON Lines: one document per line. Otherwise the whole input is one document.</param>
/// <param name="Id">The id of the single document (not with <paramref name="Lines"/>).</param>
/// <param name="IdProperty">A top-level property of each document that holds its id (a string or a number).</param>
internal sealed record DocumentReaderOptions(bool Lines, string? Id, string? IdProperty)
{
    /// <summary>Why these options cannot work, or null when they can.</summary>
    public string? Problem => (Id, IdProperty) switch
    {
        (not null, not null) => "use either --id or --id-property, not both",
        (null, null) => "every document needs an id: pass --id ID (single document) or --id-property NAME",
        ({ Length: 0 }, _) => "--id must not be empty",
        (_, { Length: 0 }) => "--id-property must not be empty",
        (not null, _) when Lines => "--id names a single document; with --lines, use --id-property NAME",
        _ => null,
    };
}
