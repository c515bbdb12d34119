using System.Text.Json;

namespace Ingest.Contracts.Messages;

/// <summary>How error messages name a JSON value's kind ("the body is an array, not an object").</summary>
public static class JsonTokenDescriptions
{
    public static string Describe(JsonTokenType token) => token switch
    {
        JsonTokenType.StartArray => "an array",
        JsonTokenType.StartObject => "an object",
        JsonTokenType.String => "a string",
        JsonTokenType.Number => "a number",
        JsonTokenType.True or JsonTokenType.False => "a boolean",
        JsonTokenType.Null => "null",
        _ => token.ToString(),
    };
}
