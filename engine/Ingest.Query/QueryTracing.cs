using System.Diagnostics;
using System.Text.RegularExpressions;
using Ingest.Query.Syntax;

namespace Ingest.Query;

/// <summary>
/// The span of starting a query: its text with literal values redacted (<c>$parameters</c> stay by name, their
/// values are never recorded) and the index that answers it. On the <c>Ingest</c> activity source, which the server
/// collects by that name (as it does <see cref="Indexing.Runtime.IndexingTelemetry"/>'s).
/// </summary>
public static partial class QueryTracing
{
    public const string Name = "Ingest";
    public const string ActivityName = "query";
    public const string QueryTextTag = "db.query.text";
    public const string IndexTag = "ingest.query.index";
    public const string CollectionScan = "(collection scan)";

    private static readonly ActivitySource Source = new(Name);

    /// <summary><paramref name="text"/> as the user wrote it, or null to record <paramref name="query"/> formatted (only when sampled).</summary>
    internal static Activity? Start(string? text, ParsedQuery query)
    {
        var activity = Source.StartActivity(ActivityName, ActivityKind.Internal);
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(QueryTextTag, Redact(text ?? QueryFormatter.Format(query)));
        }

        return activity;
    }

    internal static void SetIndex(Activity? activity, string? index, bool automatic)
    {
        if (activity is { IsAllDataRequested: true })
        {
            activity.SetTag(IndexTag, index ?? CollectionScan);
            activity.SetTag("ingest.query.index.automatic", automatic);
        }
    }

    /// <summary>The query with every string and number literal replaced by <c>?</c>.</summary>
    public static string Redact(string text)
    {
        ArgumentNullException.ThrowIfNull(text);
        return Literal().Replace(text, "?");
    }

    // Quoted strings (either quote, backslash escapes), then numbers not part of a name or parameter.
    [GeneratedRegex("""'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|(?<![\w$.])-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?![\w.])""")]
    private static partial Regex Literal();
}
