namespace Ingest.Documents;

/// <summary>What <see cref="DocumentReader.VerifyDocuments"/> checked and the problems it found.</summary>
/// <param name="DocumentsChecked">Live documents read.</param>
/// <param name="CompressedDocuments">Of those, documents stored compressed (each was decompressed).</param>
/// <param name="Dictionaries">Compression dictionaries the store holds.</param>
/// <param name="Problems">Each problem, naming the document id or the dictionary; empty when sound.</param>
public sealed record DocumentVerificationReport(long DocumentsChecked, long CompressedDocuments, int Dictionaries, IReadOnlyList<string> Problems)
{
    public bool IsClean => Problems.Count == 0;
}
