using System.Globalization;
using System.Text.RegularExpressions;

namespace Ingest.Server.Tests.Telemetry;

/// <summary>The samples of a Prometheus text exposition, for asserting names, labels and values.</summary>
internal sealed partial class PrometheusText
{
    private readonly List<(string Name, Dictionary<string, string> Labels, double Value)> _samples = [];

    public PrometheusText(string text)
    {
        Text = text;
        foreach (var line in text.Split('\n'))
        {
            if (line.Length == 0 || line[0] == '#')
            {
                continue;
            }

            var match = SampleLine().Match(line);
            Assert.True(match.Success, $"not a sample line: {line}");
            var labels = new Dictionary<string, string>(StringComparer.Ordinal);
            foreach (Match label in LabelPair().Matches(match.Groups["labels"].Value))
            {
                labels[label.Groups["name"].Value] = label.Groups["value"].Value;
            }

            _samples.Add((match.Groups["name"].Value, labels, ParseValue(match.Groups["value"].Value)));
        }
    }

    public string Text { get; }

    /// <summary>The one sample of <paramref name="name"/> whose labels include all of <paramref name="labels"/>.</summary>
    public double Value(string name, params (string Name, string Value)[] labels)
    {
        var found = _samples.Where(s => s.Name == name && labels.All(l => s.Labels.TryGetValue(l.Name, out var v) && v == l.Value)).ToList();
        Assert.True(found.Count == 1, $"expected one sample {name}{{{string.Join(",", labels.Select(l => $"{l.Name}=\"{l.Value}\""))}}}, found {found.Count} in:\n{Text}");
        return found[0].Value;
    }

    public bool HasType(string name, string type) => Text.Contains($"# TYPE {name} {type}\n", StringComparison.Ordinal);

    private static double ParseValue(string value) => value switch
    {
        "+Inf" => double.PositiveInfinity,
        "-Inf" => double.NegativeInfinity,
        "NaN" => double.NaN,
        _ => double.Parse(value, CultureInfo.InvariantCulture),
    };

    [GeneratedRegex(@"^(?<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(\{(?<labels>.*)\})? (?<value>\S+)( \d+)?$")]
    private static partial Regex SampleLine();

    [GeneratedRegex(@"(?<name>[a-zA-Z_][a-zA-Z0-9_]*)=""(?<value>(?:[^""\\]|\\.)*)""")]
    private static partial Regex LabelPair();
}
