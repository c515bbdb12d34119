using Xunit;

namespace Ingest.Testing;

/// <summary>
/// JSON bodies that are well-formed except for their UTF-8, each with the offset of its first bad
/// byte: what the store, the HTTP API and the message mapper must all refuse.
/// </summary>
public static class InvalidUtf8Bodies
{
    private static readonly Dictionary<string, (byte[] Body, int Offset)> Cases = new(StringComparer.Ordinal)
    {
        ["FF in a string"] = (Json("{\"a\":\"", [0xFF], "\"}"), 6),
        ["overlong C0 AF"] = (Json("{\"a\":\"", [0xC0, 0xAF], "\"}"), 6),
        ["encoded surrogate ED A0 80"] = (Json("{\"a\":\"", [0xED, 0xA0, 0x80], "\"}"), 6),
        ["above U+10FFFF F4 90 80 80"] = (Json("{\"a\":\"", [0xF4, 0x90, 0x80, 0x80], "\"}"), 6),
        ["truncated E2 82 inside a string"] = (Json("{\"a\":\"", [0xE2, 0x82], "\"}"), 6),
        ["truncated E2 82 at the end"] = (Json("{\"a\":\"x\"}", [0xE2, 0x82], ""), 9),
        ["Latin-1 text"] = (Json("{\"name\":\"Caf", [0xE9], "\"}"), 12),
        ["FE in a property name"] = (Json("{\"", [0xFE], "\":1}"), 2),
    };

    public static TheoryData<string> Names => [.. Cases.Keys];

    public static byte[] Body(string name) => Cases[name].Body;

    public static int Offset(string name) => Cases[name].Offset;

    private static byte[] Json(string before, byte[] bad, string after) =>
        [.. System.Text.Encoding.ASCII.GetBytes(before), .. bad, .. System.Text.Encoding.ASCII.GetBytes(after)];
}
