using Ingest.Server.Etl;

namespace Ingest.Server.Tests.Etl;

/// <summary>One batch's delivery reports, counted: the batch completes only once every record is reported and the sender is done.</summary>
public sealed class KafkaDeliveryTrackerTests
{
    [Fact]
    public void The_batch_completes_after_the_last_report_and_the_sender_in_either_order()
    {
        var finished = new List<KafkaDeliveryTracker>();
        var reportsFirst = new KafkaDeliveryTracker(2, 10, finished.Add);
        var senderFirst = new KafkaDeliveryTracker(2, 10, finished.Add);

        reportsFirst.Delivered(0);
        reportsFirst.Delivered(0);
        Assert.False(reportsFirst.Acknowledged.IsCompleted);
        reportsFirst.SenderDone(0);

        senderFirst.SenderDone(0);
        senderFirst.Delivered(0);
        Assert.False(senderFirst.Acknowledged.IsCompleted);
        senderFirst.Delivered(0);

        Assert.True(reportsFirst.Acknowledged.IsCompletedSuccessfully);
        Assert.True(senderFirst.Acknowledged.IsCompletedSuccessfully);
        Assert.Equal([reportsFirst, senderFirst], finished);
    }

    [Fact]
    public async Task One_failed_report_fails_the_batch_with_its_error_once_every_report_is_in()
    {
        var tracker = new KafkaDeliveryTracker(3, 10, static _ => { });
        tracker.SenderDone(0);

        tracker.Delivered(0);
        tracker.Delivered(-192); // librdkafka's ERR__MSG_TIMED_OUT
        Assert.False(tracker.Acknowledged.IsCompleted);
        tracker.Delivered(0);

        var failure = await Assert.ThrowsAsync<EtlDeliveryException>(() => tracker.Acknowledged);
        Assert.Contains("Kafka did not acknowledge every message: Local_MsgTimedOut", failure.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Records_never_handed_over_fail_the_batch_even_when_the_others_are_acknowledged()
    {
        var finished = 0;
        var tracker = new KafkaDeliveryTracker(3, 10, _ => finished++);

        tracker.Delivered(0);
        tracker.SenderDone(2, new EtlDeliveryException("refused"));

        var failure = await Assert.ThrowsAsync<EtlDeliveryException>(() => tracker.Acknowledged);
        Assert.Equal("refused", failure.Message);
        Assert.Equal(1, finished);
    }

    [Fact]
    public async Task Abandoning_fails_a_batch_whose_reports_will_not_come()
    {
        var finished = 0;
        var tracker = new KafkaDeliveryTracker(3, 10, _ => finished++);
        tracker.SenderDone(0);
        tracker.Delivered(0);

        tracker.Abandon(new EtlDeliveryException("closed"));
        tracker.Abandon(new EtlDeliveryException("closed again"));

        var failure = await Assert.ThrowsAsync<EtlDeliveryException>(() => tracker.Acknowledged);
        Assert.Equal("closed", failure.Message);
        Assert.Equal(1, finished);
    }
}
