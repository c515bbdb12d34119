using System.Text.Json;
using Ingest.Indexing.Reduce;

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
        var reduce = body.Reduce == null ? null : ToReduce(body.Reduce, errors);
        if (reduce != null)
        {
            ReduceDefinitionValidator.Check(reduce, fields, errors);
        }

        if (errors.Count > 0)
        {
            return IndexDefinitionResult.Invalid(errors);
        }

        return new IndexDefinitionResult(
            new IndexDefinition(name!, body.Collections!.Select(c => c!).ToArray(), fields!.Select(f => f!).ToArray()) { Reduce = reduce },
            []);
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
            Reduce = definition.Reduce == null ? null : new ReduceBody
            {
                GroupBy = [.. definition.Reduce.GroupBy.Select(k => new GroupKeyBody { Name = k.Name, Field = k.Field, Interval = k.Interval })],
                Aggregates = [.. definition.Reduce.Aggregates.Select(a => new AggregateBody { Name = a.Name, Function = AggregateKindNames.ToWire(a.Kind), Field = a.Field })],
            },
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

    /// <summary>
    /// The body's reduce as a definition for the validator, every item at its position: an unknown function is
    /// reported here (the aggregate goes on as a count), a missing key name defaults to its field's.
    /// </summary>
    private static ReduceDefinition ToReduce(ReduceBody body, List<IndexDefinitionError> errors)
    {
        var keys = new List<GroupKeyDefinition>();
        var groupBy = body.GroupBy ?? [];
        for (var i = 0; i < groupBy.Count; i++)
        {
            var key = groupBy[i];
            if (key == null)
            {
                keys.Add(null!); // the validator reports it, and the keys after it keep their positions
                continue;
            }

            var name = key.Name ?? (key.Interval == null ? key.Field : null);
            keys.Add(new GroupKeyDefinition(name ?? "", key.Field ?? "", key.Interval));
        }

        var aggregates = new List<AggregateDefinition>();
        var bodies = body.Aggregates ?? [];
        for (var i = 0; i < bodies.Count; i++)
        {
            var aggregate = bodies[i];
            if (aggregate == null)
            {
                aggregates.Add(null!); // as for keys
                continue;
            }

            var label = string.IsNullOrWhiteSpace(aggregate.Name) ? $"aggregate {i}" : $"aggregate '{aggregate.Name}'";
            if (!AggregateKindNames.TryParse(aggregate.Function, out var kind))
            {
                errors.Add(new IndexDefinitionError(
                    $"reduce.aggregates[{i}].function",
                    aggregate.Function == null
                        ? $"{label} has no function; expected one of {AggregateKindNames.Expected}"
                        : $"{label} has unknown function '{aggregate.Function}'; expected one of {AggregateKindNames.Expected}"));
                aggregates.Add(new AggregateDefinition(aggregate.Name ?? "", AggregateKind.Count)); // a stand-in, so its name is still checked
                continue;
            }

            aggregates.Add(new AggregateDefinition(aggregate.Name ?? "", kind, aggregate.Field));
        }

        return new ReduceDefinition(keys, aggregates);
    }

    /// <summary>The serializer's messages name our internal types; say what a client can act on instead.</summary>
    private static string DescribeJsonProblem(JsonException ex)
    {
        var path = ex.Path ?? "$";
        if (ex.Message.Contains("could not be mapped", StringComparison.Ordinal))
        {
            return $"unknown member at {path}; a definition has name, collections, fields and reduce, a field has name, path, type and exactCase, a reduce has groupBy and aggregates, a group key has name, field and interval, an aggregate has name, function and field";
        }

        if (ex.Message.Contains("could not be converted", StringComparison.Ordinal))
        {
            return $"{path} has the wrong JSON type (names, paths and types are strings, collections and fields are arrays, exactCase is true or false)";
        }

        var where = ex.LineNumber is { } line ? $" at line {line + 1}, byte {ex.BytePositionInLine + 1}" : "";
        return $"malformed JSON{where}";
    }
}
