using Ingest.Indexing.Paths;
using Ingest.Indexing.Reduce;

namespace Ingest.Indexing.Definitions;

/// <summary>
/// Checks a definition and reports every problem at once, each with where it is and what is wrong, so that one
/// 400 response lists them all. Index names become directory names, hence the narrow character set.
/// </summary>
public static class IndexDefinitionValidator
{
    public const int MaxIndexNameLength = 128;
    public const int MaxFieldNameLength = 256;

    public static IReadOnlyList<IndexDefinitionError> Validate(IndexDefinition definition)
    {
        ArgumentNullException.ThrowIfNull(definition);
        var errors = new List<IndexDefinitionError>();
        Check(definition.Name, definition.Collections, definition.Fields, errors);
        if (definition.Reduce != null)
        {
            ReduceDefinitionValidator.Check(definition.Reduce, definition.Fields, errors);
        }

        return errors;
    }

    internal static void Check(string? name, IReadOnlyList<string?>? collections, IReadOnlyList<IndexFieldDefinition?>? fields, List<IndexDefinitionError> errors)
    {
        if (CheckIndexName(name) is { } nameProblem)
        {
            errors.Add(new IndexDefinitionError("name", nameProblem));
        }

        CheckCollections(collections, errors);
        CheckFields(fields, errors);
    }

    /// <summary>Null when <paramref name="name"/> is a usable index name, otherwise what is wrong with it.</summary>
    internal static string? CheckIndexName(string? name)
    {
        if (string.IsNullOrEmpty(name))
        {
            return "the index needs a name";
        }

        if (name.Length > MaxIndexNameLength)
        {
            return $"index name is {name.Length} characters long; the limit is {MaxIndexNameLength}";
        }

        for (var i = 0; i < name.Length; i++)
        {
            var c = name[i];
            if (!(char.IsAsciiLetterOrDigit(c) || c is '/' or '-' or '_' or '.'))
            {
                return $"index name '{name}' has '{c}' at {i}; allowed are ASCII letters, digits, '/', '-', '_' and '.'";
            }
        }

        foreach (var segment in name.Split('/'))
        {
            if (segment.Length == 0)
            {
                return $"index name '{name}' has an empty part between '/' (leading, trailing or doubled '/')";
            }

            if (segment is "." or "..")
            {
                return $"index name '{name}' has a '{segment}' part";
            }
        }

        return null;
    }

    private static void CheckCollections(IReadOnlyList<string?>? collections, List<IndexDefinitionError> errors)
    {
        if (collections == null || collections.Count == 0)
        {
            errors.Add(new IndexDefinitionError("collections", "at least one collection is required"));
            return;
        }

        var seen = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < collections.Count; i++)
        {
            var collection = collections[i];
            if (string.IsNullOrWhiteSpace(collection))
            {
                errors.Add(new IndexDefinitionError($"collections[{i}]", "a collection name must not be empty"));
            }
            else if (!seen.Add(collection))
            {
                errors.Add(new IndexDefinitionError($"collections[{i}]", $"collection '{collection}' is listed twice"));
            }
        }
    }

    private static void CheckFields(IReadOnlyList<IndexFieldDefinition?>? fields, List<IndexDefinitionError> errors)
    {
        if (fields == null || fields.Count == 0)
        {
            errors.Add(new IndexDefinitionError("fields", "at least one field is required"));
            return;
        }

        var firstByName = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < fields.Count; i++)
        {
            var field = fields[i];
            if (field == null)
            {
                errors.Add(new IndexDefinitionError($"fields[{i}]", $"field {i} must be an object"));
                continue;
            }

            var label = string.IsNullOrWhiteSpace(field.Name) ? $"field {i}" : $"field '{field.Name}'";
            if (string.IsNullOrWhiteSpace(field.Name))
            {
                errors.Add(new IndexDefinitionError($"fields[{i}].name", $"{label} has no name"));
            }
            else if (field.Name.Length > MaxFieldNameLength)
            {
                errors.Add(new IndexDefinitionError($"fields[{i}].name", $"{label} has a name of {field.Name.Length} characters; the limit is {MaxFieldNameLength}"));
            }
            else if (!firstByName.TryAdd(field.Name, i))
            {
                var first = firstByName[field.Name];
                errors.Add(new IndexDefinitionError(
                    $"fields[{i}].name",
                    $"{label} has the same name as fields[{first}] '{fields[first]!.Name}'; field names are case-insensitive"));
            }

            if (string.IsNullOrEmpty(field.Path))
            {
                errors.Add(new IndexDefinitionError($"fields[{i}].path", $"{label} has no path"));
            }
            else if (!JsonPathCompiler.TryCompile(field.Path, out _, out var pathError))
            {
                errors.Add(new IndexDefinitionError($"fields[{i}].path", $"{label} has a malformed path '{field.Path}': {pathError}"));
            }

            if (!Enum.IsDefined(field.Type))
            {
                errors.Add(new IndexDefinitionError($"fields[{i}].type", $"{label} has unknown type {(int)field.Type}; expected one of {IndexFieldTypeNames.Expected}"));
            }
            else if (field.ExactCase && field.Type != IndexFieldType.Keyword)
            {
                errors.Add(new IndexDefinitionError(
                    $"fields[{i}].exactCase",
                    $"{label} is of type {IndexFieldTypeNames.ToWire(field.Type)}; exactCase applies only to keyword fields"));
            }
        }
    }
}
