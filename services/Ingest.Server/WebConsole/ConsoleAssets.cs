using System.Collections.Frozen;
using System.Reflection;
using System.Security.Cryptography;

namespace Ingest.Server.WebConsole;

/// <summary>
/// The console's files, built into the server as resources named <c>console/&lt;path&gt;</c> (see the project
/// file), read once at start. They are small (tens of KB) and never change while the process runs, so each is kept
/// as bytes with a content hash for its ETag: a browser revalidates and gets 304s instead of the files again.
/// </summary>
internal sealed class ConsoleAssets
{
    private const string Prefix = "console/";

    private readonly FrozenDictionary<string, ConsoleAsset> _assets;

    private ConsoleAssets(FrozenDictionary<string, ConsoleAsset> assets) => _assets = assets;

    public static ConsoleAssets FromResources(Assembly assembly)
    {
        var assets = new Dictionary<string, ConsoleAsset>(StringComparer.Ordinal);
        foreach (var name in assembly.GetManifestResourceNames())
        {
            if (!name.StartsWith(Prefix, StringComparison.Ordinal))
            {
                continue;
            }

            using var stream = assembly.GetManifestResourceStream(name)
                ?? throw new InvalidOperationException($"The console resource '{name}' is listed but cannot be read.");
            var bytes = new byte[stream.Length];
            stream.ReadExactly(bytes);
            var path = name[Prefix.Length..].Replace('\\', '/');
            var etag = "\"" + Convert.ToHexStringLower(SHA256.HashData(bytes).AsSpan(0, 12)) + "\"";
            assets[path] = new ConsoleAsset(bytes, ContentTypeOf(path), etag);
        }

        if (!assets.ContainsKey(ConsoleEndpoints.IndexFile))
        {
            throw new InvalidOperationException($"The server was built without its console ({Prefix}{ConsoleEndpoints.IndexFile} is missing from its resources).");
        }

        return new ConsoleAssets(assets.ToFrozenDictionary(StringComparer.Ordinal));
    }

    public bool TryGet(string path, out ConsoleAsset asset) => _assets.TryGetValue(path, out asset!);

    private static string ContentTypeOf(string path) => Path.GetExtension(path) switch
    {
        ".html" => "text/html; charset=utf-8",
        ".js" => "text/javascript; charset=utf-8",
        ".css" => "text/css; charset=utf-8",
        ".svg" => "image/svg+xml",
        ".png" => "image/png",
        ".ico" => "image/x-icon",
        ".json" => "application/json",
        _ => "application/octet-stream",
    };
}
