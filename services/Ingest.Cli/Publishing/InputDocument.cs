namespace Ingest.Cli.Publishing;

/// <summary>
/// One validated document of the input: its id and its UTF-8 JSON body, a slice of the input buffer
/// (not a copy). <paramref name="Line"/> is where the document starts, for messages about it, or 0
/// when the document did not come from an input (a delete by <c>--id</c> alone).
/// </summary>
internal sealed record InputDocument(int Line, string Id, ReadOnlyMemory<byte> Body)
{
    public override string ToString() => Line > 0 ? $"'{Id}' (line {Line})" : $"'{Id}'";
}
