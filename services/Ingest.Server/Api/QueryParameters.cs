using System.Globalization;

namespace Ingest.Server.Api;

/// <summary>Reads paging parameters from the query string, so a bad value gets a problem that names it rather than a bare 400.</summary>
internal static class QueryParameters
{
    public const int DefaultPageSize = 100;
    public const int MaxPageSize = 1000;

    /// <summary>The etag or id to continue after: a non-negative integer, 0 when absent.</summary>
    public static bool TryGetStart(HttpRequest request, out long start, out IResult? problem)
    {
        start = 0;
        problem = null;
        var text = request.Query["start"].ToString();
        if (text.Length == 0)
        {
            return true;
        }

        if (long.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out start))
        {
            return true;
        }

        problem = ApiProblems.BadParameter("start", text, "expected a non-negative integer (the 'next' value of the previous page)");
        return false;
    }

    /// <summary>The page size: 1 to <see cref="MaxPageSize"/>, <see cref="DefaultPageSize"/> when absent.</summary>
    public static bool TryGetPageSize(HttpRequest request, out int pageSize, out IResult? problem)
    {
        pageSize = DefaultPageSize;
        problem = null;
        var text = request.Query["pageSize"].ToString();
        if (text.Length == 0)
        {
            return true;
        }

        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out pageSize) && pageSize is >= 1 and <= MaxPageSize)
        {
            return true;
        }

        problem = ApiProblems.BadParameter("pageSize", text, $"expected an integer from 1 to {MaxPageSize}");
        return false;
    }
}
