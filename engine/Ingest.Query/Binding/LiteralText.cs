using System.Globalization;
using Ingest.Query.Syntax;

namespace Ingest.Query.Binding;

/// <summary>How error messages show a literal: <c>'abc'</c>, <c>12.5</c>, <c>true</c>, <c>null</c>.</summary>
internal static class LiteralText
{
    private const int MaxShown = 64;

    public static string Describe(QueryValue value) => value switch
    {
        StringValue s => "'" + (s.Value.Length > MaxShown ? s.Value[..MaxShown] + "..." : s.Value) + "'",
        NumberValue n => n.Text,
        BoolValue b => b.Value ? "true" : "false",
        NullValue => "null",
        ParameterValue p => "$" + p.Name,
        _ => value.ToString(),
    };

    public static string TypeName(Ingest.Indexing.Definitions.IndexFieldType type) =>
        Ingest.Indexing.Definitions.IndexFieldTypeNames.ToWire(type);

    public static string Number(double value) => value.ToString("R", CultureInfo.InvariantCulture);
}
