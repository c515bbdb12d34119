namespace Ingest.Benchmarks.Documents;

/// <summary>One thread's reads: gets happen between <see cref="Begin"/> and <see cref="End"/> (one snapshot).</summary>
internal interface IDocumentReadSession : IDisposable
{
    void Begin();

    /// <summary>The body's length, or -1 if there is no such document.</summary>
    int Get(string id);

    void End();
}
