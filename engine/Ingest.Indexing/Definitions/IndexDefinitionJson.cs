using System.Text.Json;

namespace Ingest.Indexing.Definitions;

/// <summary>Reads a definition from its JSON wire form (as <c>PUT /indexes/{name}</c> receives it) and writes it back.</summary>
public static class IndexDefinitionJson
{
    /// <summary>
    /// Parses and validates <paramref name="utf8Json"/>. <paramref name="nameFromRoute"/> is the name in the URL: the
    /// body may leave its <c>name</c> out, and if it has one it must be the same.
    /// </summary>
    public static IndexDefinitionResult Parse(ReadOnlySpan<byte> utf8Json, string? nameFromRoute = null)
    {
        IndexDefinitionBody? body;
        try
        {
            body = JsonSerializer.Deserialize(utf8Json, IndexDefinitionJsonContext.Default.IndexDefinitionBody);
        }
        catch (JsonException ex)
        {
            return IndexDefinitionResult.Invalid([new IndexDefinitionError(ex.Path ?? "$", DescribeJsonProblem(ex))]);
        }

        if (body == null)
        {
            return IndexDefinitionResult.Invalid([new IndexDefinitionError("$", "the definition must be a JSON object, not null")]);
        }

        var errors = new List<IndexDefinitionError>();
        var name = body.Name ?? nameFromRoute;
        if (body.Name != null && nameFromRoute != null && !string.Equals(body.Name, nameFromRoute, StringComparison.Ordinal))
        {
            errors.Add(new IndexDefinitionError("name", $"the body names index '{body.Name}' but the URL names '{nameFromRoute}'"));
        }

        var fields = body.Fields?.Select((field, i) => ToField(field, i, errors)).ToList();
        IndexDefinitionValidator.Check(name, body.Collections, fields, errors);
        if (errors.Count > 0)
        {
            return IndexDefinitionResult.Invalid(errors);
        }

        return new IndexDefinitionResult(new IndexDefinition(name!, body.Collections!.Select(c => c!).ToArray(), fields!.Select(f => f!).ToArray()), []);
    }

    public static byte[] ToUtf8(IndexDefinition definition)
    {
        ArgumentNullException.ThrowIfNull(definition);
        var body = new IndexDefinitionBody
        {
            Name = definition.Name,
            Collections = [.. definition.Collections],
            Fields = [.. definition.Fields.Select(f => new IndexFieldBody
            {
                Name = f.Name,
                Path = f.Path,
                Type = IndexFieldTypeNames.ToWire(f.Type),
                ExactCase = f.ExactCase ? true : null,
            })],
        };
        return JsonSerializer.SerializeToUtf8Bytes(body, IndexDefinitionJsonContext.Default.IndexDefinitionBody);
    }

    /// <summary>An unknown type becomes an error here; the field goes on to the validator with a stand-in type so its other problems are reported too.</summary>
    private static IndexFieldDefinition? ToField(IndexFieldBody? body, int index, List<IndexDefinitionError> errors)
    {
        if (body == null)
        {
            return null;
        }

        var label = string.IsNullOrWhiteSpace(body.Name) ? $"field {index}" : $"field '{body.Name}'";
        var known = false;
        var type = IndexFieldType.Keyword;
        if (string.IsNullOrWhiteSpace(body.Type))
        {
            errors.Add(new IndexDefinitionError($"fields[{index}].type", $"{label} has no type; expected one of {IndexFieldTypeNames.Expected}"));
        }
        else if (IndexFieldTypeNames.TryParse(body.Type, out type))
        {
            known = true;
        }
        else
        {
            errors.Add(new IndexDefinitionError($"fields[{index}].type", $"{label} has unknown type '{body.Type}'; expected one of {IndexFieldTypeNames.Expected}"));
        }

        return new IndexFieldDefinition(body.Name ?? "", body.Path ?? "", type, known && body.ExactCase == true);
    }

    /// <summary>The serializer's messages name our internal types; say what a client can act on instead.</summary>
    private static string DescribeJsonProblem(JsonException ex)
    {
        var path = ex.Path ?? "$";
        if (ex.Message.Contains("could not be mapped", StringComparison.Ordinal))
        {
            return $"unknown member at {path}; a definition has name, collections and fields, a field has name, path, type and exactCase";
        }

        if (ex.Message.Contains("could not be converted", StringComparison.Ordinal))
        {
            return $"{path} has the wrong JSON type (names, paths and types are strings, collections and fields are arrays, exactCase is true or false)";
        }

        var where = ex.LineNumber is { } line ? $" at line {line + 1}, byte {ex.BytePositionInLine + 1}" : "";
        return $"malformed JSON{where}";
    }
}
