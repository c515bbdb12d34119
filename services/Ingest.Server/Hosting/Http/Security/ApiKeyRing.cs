using Ingest.Contracts.Http;
using System.Security.Cryptography;

namespace Ingest.Server.Hosting.Http.Security;

/// <summary>
/// The configured keys as hashes, each with its caller. A presented key is hashed once and compared with
/// every configured hash in constant time, so neither the time nor the order of the keys tells which
/// bytes matched.
/// </summary>
public sealed class ApiKeyRing
{
    private readonly byte[][] _hashes;
    private readonly ApiCaller[] _callers;

    public ApiKeyRing(IReadOnlyList<(byte[] Hash, ApiCaller Caller)> keys)
    {
        ArgumentNullException.ThrowIfNull(keys);
        _hashes = new byte[keys.Count][];
        _callers = new ApiCaller[keys.Count];
        for (var i = 0; i < keys.Count; i++)
        {
            _hashes[i] = keys[i].Hash;
            _callers[i] = keys[i].Caller;
        }
    }

    /// <summary>Whether any key is configured; without one the API is open and every caller is anonymous.</summary>
    public bool IsEmpty => _hashes.Length == 0;

    /// <summary>The caller whose key <paramref name="presented"/> is, or null when it is none of them.</summary>
    public ApiCaller? Find(ReadOnlySpan<char> presented)
    {
        if (presented.IsEmpty)
        {
            return null;
        }

        Span<byte> hash = stackalloc byte[ApiKeyHash.HashBytes];
        ApiKeyHash.Compute(presented, hash);
        ApiCaller? found = null;
        for (var i = 0; i < _hashes.Length; i++)
        {
            // No early exit: every hash is compared whether or not one already matched.
            if (CryptographicOperations.FixedTimeEquals(hash, _hashes[i]))
            {
                found = _callers[i];
            }
        }

        return found;
    }
}
