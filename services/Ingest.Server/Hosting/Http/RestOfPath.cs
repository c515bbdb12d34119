using Microsoft.AspNetCore.Http.Features;

namespace Ingest.Server.Hosting.Http;

/// <summary>
/// A path parameter that is the rest of the path (document ids, index names: both may contain '/'), read from the
/// request target as the client sent it and percent-decoded exactly once. The route value cannot be used: the server
/// has already decoded the path once (all but <c>%2F</c>), so decoding <c>%2F</c> again would turn <c>x%252Fy</c> into
/// <c>x/y</c>, and it leaves invalid UTF-8 such as <c>%ED%A0%80</c> as literal text. A literal <c>/</c> and <c>%2F</c> both mean '/'.
/// </summary>
internal static class RestOfPath
{
    /// <summary>
    /// The rest of the path after <paramref name="prefix"/> (which ends with '/'), percent-decoded once; a problem
    /// naming <paramref name="parameter"/> when it is empty, has a dot segment or does not decode to UTF-8.
    /// </summary>
    public static bool TryRead(HttpContext context, string prefix, string parameter, string example, out string value, out IResult problem)
    {
        value = string.Empty;
        problem = null!;
        var target = context.Features.Get<IHttpRequestFeature>()?.RawTarget;
        var path = string.IsNullOrEmpty(target) ? context.Request.Path.Value ?? string.Empty : PathOf(target);
        if (!path.StartsWith(prefix, StringComparison.OrdinalIgnoreCase))
        {
            // Only a path with dot segments ("/x/../docs/1") reaches the route without starting with the prefix.
            problem = ApiProblems.BadParameter(parameter, path, $"address it as {prefix}{{{parameter}}}, without '.' or '..' segments");
            return false;
        }

        var raw = path.AsSpan(prefix.Length);
        if (raw.IsEmpty)
        {
            problem = ApiProblems.BadParameter(parameter, null, $"put it in the path, e.g. {example}");
            return false;
        }

        foreach (var range in raw.Split('/'))
        {
            // The server removes dot segments from the path before routing, so such an id would not be the one routed.
            if (IsDotSegment(raw[range]))
            {
                problem = ApiProblems.BadParameter(parameter, raw.ToString(), "it cannot have a '.' or '..' segment between slashes");
                return false;
            }
        }

        if (!PercentEncoding.TryDecode(raw, out value, out var error))
        {
            problem = ApiProblems.BadParameter(parameter, raw.ToString(), error!);
            return false;
        }

        return true;
    }

    /// <summary>"." or "..", with each dot literal or written %2E.</summary>
    private static bool IsDotSegment(ReadOnlySpan<char> segment)
    {
        var dots = 0;
        for (var i = 0; i < segment.Length; i++, dots++)
        {
            if (segment[i] == '.')
            {
                continue;
            }

            if (segment[i] != '%' || i + 2 >= segment.Length || segment[i + 1] != '2' || (segment[i + 2] | 0x20) != 'e')
            {
                return false;
            }

            i += 2;
        }

        return dots is 1 or 2;
    }

    /// <summary>The path of an origin-form ("/docs/1?x") or absolute-form ("http://host/docs/1?x") request target.</summary>
    private static string PathOf(string target)
    {
        var start = 0;
        if (target[0] != '/')
        {
            var scheme = target.IndexOf("://", StringComparison.Ordinal);
            start = scheme < 0 ? -1 : target.IndexOf('/', scheme + 3);
            if (start < 0)
            {
                return "/";
            }
        }

        var end = target.AsSpan(start).IndexOfAny('?', '#');
        return end < 0 ? target[start..] : target.Substring(start, end);
    }
}
