namespace Ingest.Server.Tests.Hosting.Http;

/// <summary>A stream that cannot report its length, so HttpClient sends it chunked.</summary>
internal sealed class UnseekableStream(byte[] bytes) : MemoryStream(bytes)
{
    public override bool CanSeek => false;
}
