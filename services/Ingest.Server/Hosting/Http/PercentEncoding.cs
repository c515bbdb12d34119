using Ingest.Documents.Json;

namespace Ingest.Server.Hosting.Http;

/// <summary>Strict, single percent-decoding of URL path segments and RFC 8187 header values into UTF-8 text.</summary>
internal static class PercentEncoding
{
    /// <summary>
    /// Decodes every <c>%XX</c> once; other characters must be ASCII and are kept. The bytes must
    /// form valid UTF-8, so <c>%FF</c>, <c>%C0%AF</c> or <c>%ED%A0%80</c> (a surrogate) are refused.
    /// False with <paramref name="error"/> naming the first problem.
    /// </summary>
    public static bool TryDecode(ReadOnlySpan<char> text, out string decoded, out string? error)
    {
        decoded = string.Empty;
        Span<byte> bytes = text.Length <= 1024 ? stackalloc byte[text.Length] : new byte[text.Length];
        var length = 0;
        for (var i = 0; i < text.Length; i++)
        {
            var c = text[i];
            if (c == '%')
            {
                if (i + 2 >= text.Length || !char.IsAsciiHexDigit(text[i + 1]) || !char.IsAsciiHexDigit(text[i + 2]))
                {
                    error = $"'%' at position {i} is not followed by two hexadecimal digits (write a literal '%' as %25)";
                    return false;
                }

                bytes[length++] = (byte)((HexValue(text[i + 1]) << 4) | HexValue(text[i + 2]));
                i += 2;
            }
            else if (c < 128)
            {
                bytes[length++] = (byte)c;
            }
            else
            {
                error = $"the character U+{(int)c:X4} at position {i} is not ASCII; percent-encode its UTF-8 bytes";
                return false;
            }
        }

        var utf8 = bytes[..length];
        var invalid = Utf8Validation.IndexOfInvalid(utf8);
        if (invalid >= 0)
        {
            error = $"its percent-decoded bytes are not valid UTF-8 (byte {invalid} after decoding)";
            return false;
        }

        decoded = System.Text.Encoding.UTF8.GetString(utf8);
        error = null;
        return true;
    }

    private static int HexValue(char c) => c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;
}
