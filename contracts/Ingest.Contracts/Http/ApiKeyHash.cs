using System.Buffers;
using System.Security.Cryptography;
using System.Text;

namespace Ingest.Contracts.Http;

/// <summary>
/// API keys and their stored form, shared by the server (which compares) and the CLI (which makes keys).
/// The stored form of a key: <c>sha256:</c> and the hex SHA-256 of its UTF-8 bytes. A plain hash is
/// enough because the keys <c>ingest keys new</c> makes carry 256 random bits: there is no dictionary to try,
/// so a slow password hash would only slow every request down.
/// </summary>
public static class ApiKeyHash
{
    public const string Prefix = "sha256:";
    public const int HashBytes = 32;

    /// <summary>What a new key starts with, so a leaked one is recognisable in a scan of code or logs.</summary>
    public const string KeyPrefix = "ingest_";

    /// <summary>A new key: <see cref="KeyPrefix"/> and 32 random bytes in URL-safe base64 (50 characters in all).</summary>
    public static string NewKey()
    {
        Span<byte> random = stackalloc byte[32];
        RandomNumberGenerator.Fill(random);
        return KeyPrefix + Convert.ToBase64String(random).TrimEnd('=').Replace('+', '-').Replace('/', '_');
    }

    /// <summary>The configuration form of <paramref name="key"/>'s hash.</summary>
    public static string Format(string key)
    {
        ArgumentNullException.ThrowIfNull(key);
        Span<byte> hash = stackalloc byte[HashBytes];
        Compute(key, hash);
        return Prefix + Convert.ToHexStringLower(hash);
    }

    /// <summary>Parses <c>sha256:&lt;64 hex digits&gt;</c> (either case); false for anything else.</summary>
    public static bool TryParse(string? text, Span<byte> hash)
    {
        if (text is null || !text.StartsWith(Prefix, StringComparison.Ordinal) || text.Length != Prefix.Length + (2 * HashBytes))
        {
            return false;
        }

        return Convert.FromHexString(text.AsSpan(Prefix.Length), hash, out _, out var written) == OperationStatus.Done && written == HashBytes;
    }

    /// <summary>Hashes a presented key without allocating for keys of ordinary length.</summary>
    public static void Compute(ReadOnlySpan<char> key, Span<byte> hash)
    {
        var length = Encoding.UTF8.GetMaxByteCount(key.Length);
        byte[]? rented = null;
        var utf8 = length <= 512 ? stackalloc byte[512] : (rented = ArrayPool<byte>.Shared.Rent(length));
        try
        {
            var written = Encoding.UTF8.GetBytes(key, utf8);
            SHA256.HashData(utf8[..written], hash);
            CryptographicOperations.ZeroMemory(utf8[..written]);
        }
        finally
        {
            if (rented is not null)
            {
                ArrayPool<byte>.Shared.Return(rented);
            }
        }
    }
}
