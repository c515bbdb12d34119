using System.Collections.Immutable;
using Ingest.Indexing.Paths;

namespace Ingest.Indexing.Extraction;

/// <summary>
/// One position shared by the paths of an index's fields: <c>Customer.Name</c> and <c>Customer.Id</c> share the
/// <c>Customer</c> node, so one walk of the document serves both. Built once per definition, then only read.
/// </summary>
internal sealed class PathTrieNode
{
    private readonly List<int> _terminalFields = [];
    private readonly List<(ImmutableArray<byte> Name, PathTrieNode Node)> _properties = [];

    /// <summary>Fields whose path ends here: the value here is theirs.</summary>
    public int[] TerminalFields { get; private set; } = [];

    /// <summary>Property steps out of this node, by UTF-8 name (ordinal).</summary>
    public ImmutableArray<byte>[] PropertyNames { get; private set; } = [];

    public PathTrieNode[] PropertyNodes { get; private set; } = [];

    /// <summary>The element step (<c>[]</c>) out of this node, if any path takes one.</summary>
    public PathTrieNode? Elements { get; private set; }

    /// <summary>Fields whose path goes on through a property step here; each counts a null or wrong type when the value here cannot be entered.</summary>
    public int[] FieldsThroughProperties { get; private set; } = [];

    /// <summary>Fields whose path goes on through the element step here.</summary>
    public int[] FieldsThroughElements { get; private set; } = [];

    /// <summary>Every field whose path ends at or below this node.</summary>
    public int[] FieldsBelow { get; private set; } = [];

    public static PathTrieNode Build(IReadOnlyList<CompiledIndexField> fields)
    {
        var root = new PathTrieNode();
        for (var f = 0; f < fields.Count; f++)
        {
            root.Add(fields[f].Path.Steps.AsSpan(), f);
        }

        root.Freeze();
        return root;
    }

    private void Add(ReadOnlySpan<JsonPathStep> steps, int field)
    {
        if (steps.IsEmpty)
        {
            _terminalFields.Add(field);
            return;
        }

        PathTrieNode next;
        if (steps[0].Kind == JsonPathStepKind.Elements)
        {
            next = Elements ??= new PathTrieNode();
        }
        else
        {
            var name = steps[0].Utf8Name;
            var index = _properties.FindIndex(p => p.Name.AsSpan().SequenceEqual(name.AsSpan()));
            if (index < 0)
            {
                _properties.Add((name, new PathTrieNode()));
                index = _properties.Count - 1;
            }

            next = _properties[index].Node;
        }

        next.Add(steps[1..], field);
    }

    private void Freeze()
    {
        TerminalFields = [.. _terminalFields];
        PropertyNames = [.. _properties.Select(p => p.Name)];
        PropertyNodes = [.. _properties.Select(p => p.Node)];
        foreach (var node in PropertyNodes)
        {
            node.Freeze();
        }

        Elements?.Freeze();
        FieldsThroughProperties = [.. PropertyNodes.SelectMany(n => n.FieldsBelow)];
        FieldsThroughElements = Elements?.FieldsBelow ?? [];
        FieldsBelow = [.. TerminalFields, .. FieldsThroughProperties, .. FieldsThroughElements];
    }
}
