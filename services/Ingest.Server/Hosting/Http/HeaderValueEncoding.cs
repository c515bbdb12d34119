using System.Buffers;
using System.Text;

namespace Ingest.Server.Hosting.Http;

/// <summary>
/// Header values that are not plain printable ASCII (a collection named <c>Café</c>, or one with
/// spaces at its ends, which HTTP would trim) travel as an RFC 8187 extended value:
/// <c>UTF-8''Caf%C3%A9</c>, the UTF-8 bytes percent-encoded, all but RFC 8187's attr-chars.
/// A value that itself starts with <c>UTF-8''</c> is encoded too, so every value decodes to itself.
/// </summary>
internal static class HeaderValueEncoding
{
    public const string Prefix = "UTF-8''";

    // RFC 8187 attr-char: ALPHA / DIGIT / "!" / "#" / "$" / "&" / "+" / "-" / "." / "^" / "_" / "`" / "|" / "~"
    private static readonly SearchValues<byte> AttrChars =
        SearchValues.Create("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~"u8);

    public static string Encode(string value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (IsPlain(value))
        {
            return value;
        }

        var utf8 = Encoding.UTF8.GetBytes(value);
        var encoded = new StringBuilder(Prefix, Prefix.Length + (utf8.Length * 3));
        foreach (var b in utf8)
        {
            if (AttrChars.Contains(b))
            {
                encoded.Append((char)b);
            }
            else
            {
                encoded.Append('%').Append(Convert.ToHexString([b]));
            }
        }

        return encoded.ToString();
    }

    /// <summary>
    /// The value a header carries: an extended value decoded (leniently: any ASCII besides %XX is
    /// taken as it is), anything else unchanged. False when an extended value is malformed or not
    /// valid UTF-8; <paramref name="error"/> says how.
    /// </summary>
    public static bool TryDecode(string value, out string decoded, out string? error)
    {
        ArgumentNullException.ThrowIfNull(value);
        decoded = value;
        error = null;
        if (!value.StartsWith(Prefix, StringComparison.OrdinalIgnoreCase))
        {
            return true;
        }

        if (!PercentEncoding.TryDecode(value.AsSpan(Prefix.Length), out decoded, out error))
        {
            decoded = value;
            return false;
        }

        return true;
    }

    private static bool IsPlain(string value)
    {
        if (value.Length == 0 || value[0] == ' ' || value[^1] == ' ' || value.StartsWith(Prefix, StringComparison.OrdinalIgnoreCase))
        {
            return value.Length == 0;
        }

        foreach (var c in value)
        {
            if (c is < ' ' or > '~')
            {
                return false;
            }
        }

        return true;
    }
}
