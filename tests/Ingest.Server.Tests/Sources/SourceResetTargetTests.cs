using System.Text;
using Ingest.Server.Sources;

namespace Ingest.Server.Tests.Sources;

public sealed class SourceResetTargetTests
{
    [Theory]
    [InlineData("""{"to":"earliest"}""", SourceResetKind.Earliest, "earliest")]
    [InlineData("""{"to":"LATEST"}""", SourceResetKind.Latest, "latest")]
    [InlineData("""{"to":"2026-11-26T09:30:00+01:00"}""", SourceResetKind.Time, "2026-11-26T08:30:00Z")]
    [InlineData("""{"to":"2026-11-26T08:30:00.25"}""", SourceResetKind.Time, "2026-11-26T08:30:00.25Z")]
    [InlineData("""{"to":{"orders":{"0":12,"3":0}},"note":"ignored"}""", SourceResetKind.Offsets, "offsets")]
    public void Each_accepted_form_parses_and_names_itself(string body, SourceResetKind kind, string name)
    {
        Assert.True(SourceResetTarget.TryParse(Encoding.UTF8.GetBytes(body), out var target, out var error), error);
        Assert.Equal(kind, target!.Kind);
        Assert.Equal(name, target.ToString());
        if (kind == SourceResetKind.Offsets)
        {
            Assert.Equal([(0, 12L), (3, 0L)], target.Offsets["orders"].OrderBy(p => p.Key).Select(p => (p.Key, p.Value)));
        }
    }

    [Theory]
    [InlineData("", "The body is not JSON")]
    [InlineData("[]", "The body has no 'to'")]
    [InlineData("""{"to":null}""", "'to' is null")]
    [InlineData("""{"to":"tomorrow"}""", "'to' is 'tomorrow', neither 'earliest', 'latest' nor an ISO 8601 time")]
    [InlineData("""{"to":"2026-13-40"}""", "'to' is '2026-13-40'")]
    [InlineData("""{"to":{"orders":[1]}}""", "'to.orders' is not an object of partitions and offsets")]
    [InlineData("""{"to":{"orders":{}}}""", "'to.orders' names no partition")]
    [InlineData("""{"to":{"orders":{"-1":0}}}""", "'to.orders' names partition '-1'")]
    [InlineData("""{"to":{"orders":{"0":1.5}}}""", "'to.orders.0' is 1.5; an offset is a whole number from 0")]
    [InlineData("""{"to":{"orders":{"0":"7"}}}""", "'to.orders.0' is \"7\"")]
    public void A_body_it_cannot_take_is_refused_naming_the_problem_and_what_is_accepted(string body, string problem)
    {
        Assert.False(SourceResetTarget.TryParse(Encoding.UTF8.GetBytes(body), out var target, out var error));
        Assert.Null(target);
        Assert.StartsWith(problem, error, StringComparison.Ordinal);
        Assert.EndsWith(SourceResetTarget.Accepted + ".", error, StringComparison.Ordinal);
    }
}
