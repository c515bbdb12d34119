namespace Ingest.Server.Sources;

/// <summary>Headers that are already in envelope form: a stored dead letter's, when it is replayed.</summary>
internal readonly struct EnvelopeHeaderList(IReadOnlyList<KeyValuePair<string, byte[]>>? headers) : IEnvelopeHeaders
{
    public IReadOnlyList<KeyValuePair<string, byte[]>>? ToEnvelopeHeaders() => headers;
}
