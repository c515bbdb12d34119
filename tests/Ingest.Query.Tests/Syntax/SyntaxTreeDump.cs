using System.Globalization;
using System.Text;
using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>
/// Writes a syntax tree as an S-expression of every node and field except positions, written here independently of
/// QueryFormatter so that tests compare trees structurally (records compare their lists by reference).
/// </summary>
internal static class SyntaxTreeDump
{
    public static string Dump(ParsedQuery q)
    {
        var s = new StringBuilder();
        s.Append("(query (").Append(q.Source.Kind).Append(' ').Append(Quote(q.Source.Name)).Append(')');
        s.Append(" (where ");
        if (q.Where != null)
        {
            Filter(s, q.Where);
        }

        s.Append(") (group");
        foreach (var g in q.GroupBy)
        {
            s.Append(' ');
            switch (g)
            {
                case FieldGroupBy f:
                    Field(s, f.Field);
                    break;
                case TimeGroupBy t:
                    s.Append("(time ");
                    Field(s, t.Field);
                    s.Append(' ');
                    Value(s, t.Interval);
                    s.Append(')');
                    break;
                default:
                    throw new InvalidOperationException(g.GetType().Name);
            }
        }

        s.Append(") (select");
        foreach (var item in q.Select)
        {
            s.Append(" (").Append(Quote(item.Name)).Append(' ');
            switch (item)
            {
                case FieldSelect f:
                    Field(s, f.Field);
                    break;
                case AggregateSelect a:
                    Aggregate(s, a);
                    break;
                case FacetSelect f:
                    s.Append("(facet ");
                    Field(s, f.Field);
                    foreach (var r in f.Ranges)
                    {
                        s.Append(' ');
                        Value(s, r);
                    }

                    s.Append(')');
                    break;
                default:
                    throw new InvalidOperationException(item.GetType().Name);
            }

            s.Append(')');
        }

        s.Append(") (order");
        foreach (var o in q.OrderBy)
        {
            s.Append(" (");
            if (o.Field != null)
            {
                Field(s, o.Field);
            }

            if (o.Aggregate != null)
            {
                s.Append(Quote(o.Aggregate.Name)).Append(' ');
                Aggregate(s, o.Aggregate);
            }

            s.Append(' ').Append(o.Descending ? "desc" : "asc").Append(' ').Append(o.Type).Append(')');
        }

        s.Append(") (limit ");
        if (q.Limit != null)
        {
            Value(s, q.Limit);
        }

        s.Append(") (offset ");
        if (q.Offset != null)
        {
            Value(s, q.Offset);
        }

        return s.Append("))").ToString();
    }

    private static void Aggregate(StringBuilder s, AggregateSelect a)
    {
        s.Append('(').Append(a.Function);
        if (a.Field != null)
        {
            s.Append(' ');
            Field(s, a.Field);
        }

        s.Append(')');
    }

    public static string Dump(QueryFilter f)
    {
        var s = new StringBuilder();
        Filter(s, f);
        return s.ToString();
    }

    private static void Filter(StringBuilder s, QueryFilter f)
    {
        switch (f)
        {
            case AndFilter a:
                s.Append("(and ");
                Filter(s, a.Left);
                s.Append(' ');
                Filter(s, a.Right);
                s.Append(')');
                break;
            case OrFilter o:
                s.Append("(or ");
                Filter(s, o.Left);
                s.Append(' ');
                Filter(s, o.Right);
                s.Append(')');
                break;
            case NotFilter n:
                s.Append("(not ");
                Filter(s, n.Operand);
                s.Append(')');
                break;
            case ComparisonFilter c:
                s.Append('(').Append(c.Operator).Append(' ');
                Field(s, c.Field);
                s.Append(' ');
                Value(s, c.Value);
                s.Append(')');
                break;
            case BetweenFilter b:
                s.Append("(between ");
                Field(s, b.Field);
                s.Append(' ');
                Value(s, b.Low);
                s.Append(' ');
                Value(s, b.High);
                s.Append(')');
                break;
            case InFilter i:
                s.Append("(in ");
                Field(s, i.Field);
                foreach (var v in i.Values)
                {
                    s.Append(' ');
                    Value(s, v);
                }

                s.Append(')');
                break;
            case StartsWithFilter sw:
                s.Append("(startsWith ");
                Field(s, sw.Field);
                s.Append(' ');
                Value(s, sw.Prefix);
                s.Append(')');
                break;
            case SearchFilter se:
                s.Append("(search ");
                Field(s, se.Field);
                s.Append(' ');
                Value(s, se.Words);
                s.Append(')');
                break;
            case ExistsFilter e:
                s.Append("(exists ");
                Field(s, e.Field);
                s.Append(')');
                break;
            default:
                throw new InvalidOperationException(f.GetType().Name);
        }
    }

    private static void Field(StringBuilder s, FieldRef f) => s.Append(f.IsDocumentId ? "#id" : "@" + Quote(f.Path));

    private static void Value(StringBuilder s, QueryValue v)
    {
        switch (v)
        {
            case StringValue sv:
                s.Append("s:").Append(Quote(sv.Value));
                break;
            case NumberValue n:
                s.Append("n:").Append(n.Text).Append('=').Append(n.Value.ToString("R", CultureInfo.InvariantCulture));
                break;
            case BoolValue b:
                s.Append(b.Value ? "true" : "false");
                break;
            case NullValue:
                s.Append("null");
                break;
            case ParameterValue p:
                s.Append('$').Append(Quote(p.Name));
                break;
            default:
                throw new InvalidOperationException(v.GetType().Name);
        }
    }

    private static string Quote(string text) => "«" + text + "»";
}
