using System.Globalization;
using System.Text.Json;
using Ingest.Query.Syntax;

namespace Ingest.Query.Binding;

/// <summary>
/// The <c>$name</c> values passed beside a query, as JSON. A parameter resolves to the literal its JSON value is
/// (string, number, true/false, null); a JSON array expands to its elements where a list is allowed (<c>in</c>).
/// Names are case-sensitive, without the <c>$</c>.
/// </summary>
public sealed class QueryParameters
{
    private readonly IReadOnlyDictionary<string, JsonElement> _values;

    public QueryParameters(IReadOnlyDictionary<string, JsonElement>? values)
    {
        _values = values ?? new Dictionary<string, JsonElement>();
    }

    public static QueryParameters None { get; } = new(null);

    public IReadOnlyDictionary<string, JsonElement> Values => _values;

    /// <summary>The literal a value stands for: itself, or the parameter's JSON value at the parameter's position.</summary>
    /// <exception cref="QueryException">A missing parameter, or one holding an array or object.</exception>
    public QueryValue Resolve(QueryValue value)
    {
        ArgumentNullException.ThrowIfNull(value);
        if (value is not ParameterValue parameter)
        {
            return value;
        }

        var element = GetJson(parameter);
        if (element.ValueKind is JsonValueKind.Array or JsonValueKind.Object)
        {
            throw new QueryException(
                parameter.Position, $"parameter '${parameter.Name}' is {Describe(element)}; expected a string, number, true, false or null");
        }

        return ToLiteral(parameter, element);
    }

    /// <summary>The literals of a list (<c>in (...)</c>): each parameter holding a JSON array adds its elements.</summary>
    public IReadOnlyList<QueryValue> ResolveList(IReadOnlyList<QueryValue> values)
    {
        ArgumentNullException.ThrowIfNull(values);
        var result = new List<QueryValue>(values.Count);
        foreach (var value in values)
        {
            if (value is ParameterValue parameter && GetJson(parameter) is { ValueKind: JsonValueKind.Array } array)
            {
                foreach (var item in array.EnumerateArray())
                {
                    if (item.ValueKind is JsonValueKind.Array or JsonValueKind.Object)
                    {
                        throw new QueryException(
                            parameter.Position, $"parameter '${parameter.Name}' holds {Describe(item)}; expected strings, numbers, true, false or null");
                    }

                    result.Add(ToLiteral(parameter, item));
                }

                continue;
            }

            result.Add(Resolve(value));
        }

        return result;
    }

    /// <summary><c>limit</c>/<c>offset</c>: a non-negative integer literal or parameter.</summary>
    public int ResolveCount(QueryValue value, string clause)
    {
        ArgumentNullException.ThrowIfNull(value);
        var literal = Resolve(value);
        if (literal is NumberValue number && number.Value >= 0 && number.Value <= int.MaxValue && Math.Floor(number.Value) == number.Value)
        {
            return (int)number.Value;
        }

        throw new QueryException(value.Position, $"{clause} takes a non-negative integer but found {LiteralText.Describe(literal)}");
    }

    /// <summary>The JSON value of a parameter, as passed.</summary>
    /// <exception cref="QueryException">At the parameter's position, when it was not passed.</exception>
    public JsonElement GetJson(ParameterValue parameter)
    {
        ArgumentNullException.ThrowIfNull(parameter);
        if (_values.TryGetValue(parameter.Name, out var element))
        {
            return element;
        }

        var known = _values.Count == 0 ? "no parameters were passed" : "parameters passed: " + string.Join(", ", _values.Keys.Order(StringComparer.Ordinal).Select(k => "$" + k));
        throw new QueryException(parameter.Position, $"missing parameter '${parameter.Name}'; {known}");
    }

    private static QueryValue ToLiteral(ParameterValue parameter, JsonElement element) => element.ValueKind switch
    {
        JsonValueKind.String => new StringValue(element.GetString()!, parameter.Position),
        JsonValueKind.Number => new NumberValue(element.GetDouble(), element.GetRawText(), parameter.Position),
        JsonValueKind.True => new BoolValue(true, parameter.Position),
        JsonValueKind.False => new BoolValue(false, parameter.Position),
        JsonValueKind.Null => new NullValue(parameter.Position),
        _ => throw new QueryException(parameter.Position, $"parameter '${parameter.Name}' is {Describe(element)}"),
    };

    private static string Describe(JsonElement element) => element.ValueKind switch
    {
        JsonValueKind.Array => "an array",
        JsonValueKind.Object => "an object",
        _ => element.ValueKind.ToString().ToLower(CultureInfo.InvariantCulture),
    };
}
