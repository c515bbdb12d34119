namespace Ingest.Query.Tests.AutoIndexes;

/// <summary>A clock the test moves: idle timeouts of hours pass in an instant.</summary>
internal sealed class SettableTime : TimeProvider
{
    private DateTimeOffset _now = new(2026, 11, 23, 12, 0, 0, TimeSpan.Zero);

    public override DateTimeOffset GetUtcNow() => _now;

    public void Advance(TimeSpan by) => _now += by;
}
