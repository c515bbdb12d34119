namespace Ingest.Query.Execution;

/// <summary>Without <c>order by</c>: the matches in entry order, from the first entry after the continuation's.</summary>
internal sealed class EntryOrderCandidates : EntryCandidates
{
    private readonly List<long> _matches;
    private int _position;

    public EntryOrderCandidates(List<long> matches, long? after)
    {
        _matches = matches;
        if (after is { } last)
        {
            var found = matches.BinarySearch(last);
            _position = found >= 0 ? found + 1 : ~found;
        }
    }

    public override bool MayHaveMore => _position < _matches.Count;

    public override bool TryNext(out long entry)
    {
        if (_position < _matches.Count)
        {
            entry = _matches[_position++];
            return true;
        }

        entry = 0;
        return false;
    }
}
