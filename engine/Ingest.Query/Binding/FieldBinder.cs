using Ingest.Indexing.Definitions;
using Ingest.Query.Syntax;

namespace Ingest.Query.Binding;

/// <summary>Resolves a <see cref="FieldRef"/> to a field of the answering index: its path equals a field's name, case-insensitively.</summary>
public static class FieldBinder
{
    /// <exception cref="QueryException"><c>unknown field 'Totl' in index 'Orders/ByTotal'; fields are Customer, Total</c>, at the field.</exception>
    public static BoundField Bind(FieldRef field, IndexDefinition definition)
    {
        ArgumentNullException.ThrowIfNull(field);
        ArgumentNullException.ThrowIfNull(definition);
        if (TryBind(field, definition, out var bound))
        {
            return bound;
        }

        var names = new string[definition.Fields.Count];
        for (var i = 0; i < names.Length; i++)
        {
            names[i] = definition.Fields[i].Name;
        }

        throw new QueryException(
            field.Position, $"unknown field '{field.Path}' in index '{definition.Name}'; fields are {string.Join(", ", names)} (and id())");
    }

    public static bool TryBind(FieldRef field, IndexDefinition definition, out BoundField bound)
    {
        ArgumentNullException.ThrowIfNull(field);
        ArgumentNullException.ThrowIfNull(definition);
        if (field.IsDocumentId)
        {
            bound = new BoundField(field, -1, null);
            return true;
        }

        for (var i = 0; i < definition.Fields.Count; i++)
        {
            if (string.Equals(definition.Fields[i].Name, field.Path, StringComparison.OrdinalIgnoreCase))
            {
                bound = new BoundField(field, i, definition.Fields[i]);
                return true;
            }
        }

        bound = null!;
        return false;
    }
}
