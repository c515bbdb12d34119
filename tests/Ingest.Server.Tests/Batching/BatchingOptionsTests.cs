using Ingest.Server.Batching;

namespace Ingest.Server.Tests.Batching;

public sealed class BatchingOptionsTests
{
    [Fact]
    public void Defaults_are_valid()
    {
        var options = new BatchingOptions();

        Assert.Empty(options.Validate());
        Assert.Equal(1_000, options.MaxMessages);
        Assert.Equal(4L * 1024 * 1024, options.MaxBytes);
        Assert.Equal(TimeSpan.FromMilliseconds(50), options.MaxDelay);
        Assert.Equal(2, options.MaxPendingBatches);
    }

    [Fact]
    public void Every_invalid_setting_is_reported_by_name()
    {
        var options = new BatchingOptions { MaxMessages = 0, MaxBytes = -1, MaxDelay = TimeSpan.FromMilliseconds(-5), MaxPendingBatches = 0 };

        var errors = options.Validate();

        Assert.Equal(4, errors.Count);
        Assert.Contains(errors, e => e.StartsWith("Ingest:Batching:MaxMessages must be > 0", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Batching:MaxBytes must be > 0", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Batching:MaxDelay must be > 0", StringComparison.Ordinal));
        Assert.Contains(errors, e => e.StartsWith("Ingest:Batching:MaxPendingBatches must be > 0", StringComparison.Ordinal));
        var thrown = Assert.Throws<ArgumentException>(options.ThrowIfInvalid);
        Assert.Contains("Ingest:Batching:MaxBytes", thrown.Message, StringComparison.Ordinal);
    }
}
