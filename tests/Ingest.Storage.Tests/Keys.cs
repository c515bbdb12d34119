using System.Text;

namespace Ingest.Storage.Tests;

internal static class Keys
{
    public static byte[] Of(string s) => Encoding.UTF8.GetBytes(s);

    public static byte[] Of(int i) => Encoding.UTF8.GetBytes($"key/{i:D8}");

    public static string Text(ReadOnlySpan<byte> bytes) => Encoding.UTF8.GetString(bytes);
}
