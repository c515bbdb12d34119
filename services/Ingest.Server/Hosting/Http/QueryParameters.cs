using System.Globalization;
using Microsoft.Extensions.Primitives;

namespace Ingest.Server.Hosting.Http;

/// <summary>
/// Reads query parameters, so a bad value gets a problem that names it rather than a bare 400.
/// Every parameter is taken at most once: ASP.NET joins repeats with a comma, which would turn
/// <c>?collection=a&amp;collection=b</c> into the collection <c>a,b</c>.
/// </summary>
internal static class QueryParameters
{
    public const int DefaultPageSize = 100;
    public const int MaxPageSize = 1000;

    /// <summary>The one value of <paramref name="name"/>, null when absent; a problem when it is given more than once.</summary>
    public static bool TryGetSingle(HttpRequest request, string name, out string? value, out IResult? problem)
    {
        var values = request.Query[name];
        return TryGetSingle(values, name, "parameter", out value, out problem);
    }

    /// <summary>The one value of a header or query parameter, null when absent; a problem naming it when it is given more than once.</summary>
    public static bool TryGetSingle(StringValues values, string name, string kind, out string? value, out IResult? problem)
    {
        value = null;
        problem = null;
        if (values.Count > 1)
        {
            problem = ApiProblems.Repeated(kind, name, values);
            return false;
        }

        value = values.Count == 1 ? values[0] : null;
        return true;
    }

    /// <summary>The <c>collection</c> parameter: null when absent, a problem when repeated or blank.</summary>
    public static bool TryGetCollection(HttpRequest request, out string? collection, out IResult? problem)
    {
        if (!TryGetSingle(request, "collection", out collection, out problem))
        {
            return false;
        }

        if (collection is not null && string.IsNullOrWhiteSpace(collection))
        {
            problem = ApiProblems.BadParameter("collection", collection, "a collection name needs a visible character");
            return false;
        }

        return true;
    }

    /// <summary>The etag or id to continue after: a non-negative integer, 0 when absent.</summary>
    public static bool TryGetStart(HttpRequest request, out long start, out IResult? problem)
    {
        start = 0;
        if (!TryGetSingle(request, "start", out var text, out problem) || string.IsNullOrEmpty(text))
        {
            return problem is null;
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
        if (!TryGetSingle(request, "pageSize", out var text, out problem) || string.IsNullOrEmpty(text))
        {
            return problem is null;
        }

        if (int.TryParse(text, NumberStyles.None, CultureInfo.InvariantCulture, out pageSize) && pageSize is >= 1 and <= MaxPageSize)
        {
            return true;
        }

        problem = ApiProblems.BadParameter("pageSize", text, $"expected an integer from 1 to {MaxPageSize}");
        return false;
    }
}
