using System.Security.Cryptography;
using Ingest.Documents;

namespace Ingest.Server.Cluster;

/// <summary>
/// A document version's identity that is the same on every node, for <c>If-Match</c> in cluster mode: etags are
/// local to a store, so the receiving node turns the client's etag into this, and every node compares it with its
/// own current version when it applies the write. It is the SHA-256 of the version's body (first 128 bits, hex),
/// or <see cref="Absent"/> when there is no live version. Two versions with the same body are the same version for
/// this check; a write that replaces a body with the same body cannot be told apart, and does not need to be.
/// </summary>
/// <remarks>
/// Once each version records the log position that produced it, that position is the better identity (it tells
/// equal bodies apart); the header's value is opaque to everyone but this class, so the change stays here.
/// </remarks>
internal static class DocumentVersionIdentity
{
    /// <summary>The identity of "no live version".</summary>
    public const string Absent = "-";

    /// <summary>The identity <c>If-Match: *</c> stands for: any live version.</summary>
    public const string AnyLive = "*";

    /// <summary>Whether <paramref name="document"/> (the current version, null when none) is the version <paramref name="expected"/> names.</summary>
    public static bool Matches(Document? document, string expected) =>
        expected == AnyLive ? document is { IsDeleted: false } : string.Equals(Of(document), expected, StringComparison.Ordinal);

    public static string Of(Document? document)
    {
        if (document is null || document.IsDeleted)
        {
            return Absent;
        }

        Span<byte> hash = stackalloc byte[SHA256.HashSizeInBytes];
        SHA256.HashData(document.Body.Span, hash);
        return "sha256:" + Convert.ToHexStringLower(hash[..16]);
    }
}
