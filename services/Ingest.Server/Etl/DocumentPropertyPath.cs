using System.Globalization;
using System.Text.Json;

namespace Ingest.Server.Etl;

/// <summary>Reads a scalar at a dot-separated property path (<c>Customer.Region</c>) of a JSON document.</summary>
internal static class DocumentPropertyPath
{
    public static bool IsValid(string path) =>
        path.Length is > 0 and <= 512 && path.Split('.').All(static part => part.Length > 0);

    /// <summary>The value as text (strings as they are, numbers and booleans as written), or null when absent, null or not a scalar.</summary>
    public static string? Read(ReadOnlyMemory<byte> json, string path)
    {
        try
        {
            using var document = JsonDocument.Parse(json);
            var element = document.RootElement;
            foreach (var part in path.Split('.'))
            {
                if (element.ValueKind != JsonValueKind.Object || !element.TryGetProperty(part, out element))
                {
                    return null;
                }
            }

            return element.ValueKind switch
            {
                JsonValueKind.String => element.GetString(),
                JsonValueKind.Number => element.GetRawText(),
                JsonValueKind.True => bool.TrueString.ToLower(CultureInfo.InvariantCulture),
                JsonValueKind.False => bool.FalseString.ToLower(CultureInfo.InvariantCulture),
                _ => null,
            };
        }
        catch (JsonException)
        {
            return null;
        }
    }
}
