namespace Ingest.Query.Reduce;

/// <summary>
/// A <c>where</c> condition bound to a map-reduce index's columns, tested on each group row's values. Comparisons with
/// a null column are false but for <c>= null</c> and <c>!= null</c>; <c>exists</c> is "not null".
/// </summary>
internal sealed record GroupCondition(GroupConditionKind Kind, int Column, IReadOnlyList<object?> Values, GroupCondition? Left = null, GroupCondition? Right = null)
{
    public bool Matches(object?[] row)
    {
        switch (Kind)
        {
            case GroupConditionKind.And:
                return Left!.Matches(row) && Right!.Matches(row);
            case GroupConditionKind.Or:
                return Left!.Matches(row) || Right!.Matches(row);
            case GroupConditionKind.Not:
                return !Left!.Matches(row);
            case GroupConditionKind.Exists:
                return row[Column] is not null;
            default:
                break;
        }

        var value = row[Column];
        if (Kind is GroupConditionKind.Equal or GroupConditionKind.NotEqual)
        {
            var equal = GroupValues.Compare(value, Values[0]) == 0;
            return Kind == GroupConditionKind.Equal ? equal : !equal;
        }

        if (Kind == GroupConditionKind.In)
        {
            foreach (var candidate in Values)
            {
                if (GroupValues.Compare(value, candidate) == 0)
                {
                    return true;
                }
            }

            return false;
        }

        if (value is null)
        {
            return false;
        }

        return Kind switch
        {
            GroupConditionKind.StartsWith => value is string s && s.StartsWith((string)Values[0]!, StringComparison.Ordinal),
            GroupConditionKind.Between => GroupValues.Compare(value, Values[0]) >= 0 && GroupValues.Compare(value, Values[1]) <= 0,
            GroupConditionKind.Less => Values[0] is not null && GroupValues.Compare(value, Values[0]) < 0,
            GroupConditionKind.LessOrEqual => Values[0] is not null && GroupValues.Compare(value, Values[0]) <= 0,
            GroupConditionKind.Greater => Values[0] is not null && GroupValues.Compare(value, Values[0]) > 0,
            _ => Values[0] is not null && GroupValues.Compare(value, Values[0]) >= 0,
        };
    }
}
