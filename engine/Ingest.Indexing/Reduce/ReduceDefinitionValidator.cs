using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Reduce;

/// <summary>
/// Checks a reduce against its index's fields, every problem at once, each located in the JSON body
/// (<c>reduce.groupBy[1].interval</c>, <c>reduce.aggregates[0].field</c>) and naming the key or aggregate.
/// </summary>
internal static class ReduceDefinitionValidator
{
    public const int MaxGroupKeys = 8;
    public const int MaxAggregates = 64;

    public static void Check(ReduceDefinition reduce, IReadOnlyList<IndexFieldDefinition?>? fields, List<IndexDefinitionError> errors)
    {
        var names = new Dictionary<string, string>(StringComparer.OrdinalIgnoreCase);
        var groupBy = reduce.GroupBy ?? [];
        var aggregates = reduce.Aggregates ?? [];
        if (groupBy.Count > MaxGroupKeys)
        {
            errors.Add(new IndexDefinitionError("reduce.groupBy", $"the reduce has {groupBy.Count} group keys; the limit is {MaxGroupKeys}"));
        }

        if (aggregates.Count == 0)
        {
            errors.Add(new IndexDefinitionError("reduce.aggregates", "a reduce needs at least one aggregate, e.g. {\"name\":\"Orders\",\"function\":\"count\"}"));
        }
        else if (aggregates.Count > MaxAggregates)
        {
            errors.Add(new IndexDefinitionError("reduce.aggregates", $"the reduce has {aggregates.Count} aggregates; the limit is {MaxAggregates}"));
        }

        for (var i = 0; i < groupBy.Count; i++)
        {
            var key = groupBy[i];
            var at = $"reduce.groupBy[{i}]";
            if (key == null)
            {
                errors.Add(new IndexDefinitionError(at, $"group key {i} must be an object"));
                continue;
            }

            var label = string.IsNullOrWhiteSpace(key.Name) ? $"group key {i}" : $"group key '{key.Name}'";
            CheckName(key.Name, at, label, names, errors);
            var field = Find(fields, key.Field, at, label, errors);
            if (field == null)
            {
                continue;
            }

            if (field.Type == IndexFieldType.Text)
            {
                errors.Add(new IndexDefinitionError($"{at}.field", $"{label} groups by text field '{field.Name}'; a text field is split into words, group by a keyword field instead"));
            }

            if (key.Interval != null)
            {
                if (field.Type != IndexFieldType.DateTime)
                {
                    errors.Add(new IndexDefinitionError($"{at}.interval", $"{label} has an interval but field '{field.Name}' is of type {IndexFieldTypeNames.ToWire(field.Type)}; time buckets need a datetime field"));
                }
                else if (!TimeBucket.TryParse(key.Interval, out _))
                {
                    errors.Add(new IndexDefinitionError($"{at}.interval", $"{label} has interval '{key.Interval}'; expected {TimeBucket.Expected}"));
                }
            }
        }

        for (var i = 0; i < aggregates.Count; i++)
        {
            var aggregate = aggregates[i];
            var at = $"reduce.aggregates[{i}]";
            if (aggregate == null)
            {
                errors.Add(new IndexDefinitionError(at, $"aggregate {i} must be an object"));
                continue;
            }

            var label = string.IsNullOrWhiteSpace(aggregate.Name) ? $"aggregate {i}" : $"aggregate '{aggregate.Name}'";
            CheckName(aggregate.Name, at, label, names, errors);
            if (!Enum.IsDefined(aggregate.Kind))
            {
                errors.Add(new IndexDefinitionError($"{at}.function", $"{label} has unknown function {(int)aggregate.Kind}; expected one of {AggregateKindNames.Expected}"));
                continue;
            }

            var function = AggregateKindNames.ToWire(aggregate.Kind);
            if (aggregate.Field == null)
            {
                if (aggregate.Kind != AggregateKind.Count)
                {
                    errors.Add(new IndexDefinitionError($"{at}.field", $"{label} ({function}) needs a field"));
                }

                continue;
            }

            var field = Find(fields, aggregate.Field, at, label, errors);
            if (field == null)
            {
                continue;
            }

            var type = IndexFieldTypeNames.ToWire(field.Type);
            var wrong = aggregate.Kind switch
            {
                AggregateKind.Sum or AggregateKind.Avg when field.Type != IndexFieldType.Number => "a number field",
                AggregateKind.Min or AggregateKind.Max when field.Type is not (IndexFieldType.Number or IndexFieldType.DateTime) => "a number or datetime field",
                AggregateKind.CountDistinct when field.Type == IndexFieldType.Text => "a keyword, bool, number or datetime field",
                _ => null,
            };

            if (wrong != null)
            {
                errors.Add(new IndexDefinitionError($"{at}.field", $"{label} is {function} of field '{field.Name}' of type {type}; {function} needs {wrong}"));
            }
        }
    }

    private static void CheckName(string? name, string at, string label, Dictionary<string, string> names, List<IndexDefinitionError> errors)
    {
        if (string.IsNullOrWhiteSpace(name))
        {
            errors.Add(new IndexDefinitionError($"{at}.name", $"{label} has no name"));
        }
        else if (name.Length > IndexDefinitionValidator.MaxFieldNameLength)
        {
            errors.Add(new IndexDefinitionError($"{at}.name", $"{label} has a name of {name.Length} characters; the limit is {IndexDefinitionValidator.MaxFieldNameLength}"));
        }
        else if (!names.TryAdd(name, at))
        {
            errors.Add(new IndexDefinitionError($"{at}.name", $"{label} has the same name as {names[name]}; group key and aggregate names are one namespace, case-insensitive"));
        }
    }

    private static IndexFieldDefinition? Find(IReadOnlyList<IndexFieldDefinition?>? fields, string? name, string at, string label, List<IndexDefinitionError> errors)
    {
        if (string.IsNullOrWhiteSpace(name))
        {
            errors.Add(new IndexDefinitionError($"{at}.field", $"{label} has no field"));
            return null;
        }

        if (fields != null)
        {
            foreach (var field in fields)
            {
                if (field != null && string.Equals(field.Name, name, StringComparison.OrdinalIgnoreCase))
                {
                    return field;
                }
            }
        }

        errors.Add(new IndexDefinitionError($"{at}.field", $"{label} names field '{name}', which is not one of the index's fields"));
        return null;
    }
}
