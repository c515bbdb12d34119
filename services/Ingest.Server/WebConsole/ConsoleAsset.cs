namespace Ingest.Server.WebConsole;

/// <summary>One console file: its bytes, content type and ETag.</summary>
internal sealed record ConsoleAsset(byte[] Bytes, string ContentType, string ETag);
