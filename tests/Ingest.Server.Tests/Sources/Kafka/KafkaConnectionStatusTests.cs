using Ingest.Server.Sources.Kafka;

namespace Ingest.Server.Tests.Sources.Kafka;

public sealed class KafkaConnectionStatusTests
{
    // Shaped as librdkafka's statistics: the bootstrap entry, a learned broker and the logical coordinator.
    private const string Down = """
        {"name":"rdkafka#consumer-1","type":"consumer","brokers":{
          "127.0.0.1:9092/bootstrap":{"name":"127.0.0.1:9092/bootstrap","nodeid":-1,"state":"DOWN"},
          "127.0.0.1:9092/1":{"name":"127.0.0.1:9092/1","nodeid":1,"state":"CONNECT"},
          "GroupCoordinator":{"name":"GroupCoordinator","nodeid":-1,"state":"DOWN"}},"topics":{}}
        """;

    private const string Up = """
        {"name":"rdkafka#consumer-1","type":"consumer","brokers":{
          "127.0.0.1:9092/bootstrap":{"name":"127.0.0.1:9092/bootstrap","nodeid":-1,"state":"DOWN"},
          "127.0.0.1:9092/1":{"name":"127.0.0.1:9092/1","nodeid":1,"state":"UP"},
          "GroupCoordinator":{"name":"GroupCoordinator","nodeid":1,"state":"UP"}},"topics":{}}
        """;

    [Fact]
    public void A_client_error_is_cleared_by_statistics_that_show_a_broker_up_without_any_message()
    {
        var status = new KafkaConnectionStatus();
        status.RecordContact();
        status.RecordClientError("2/2 brokers are down");
        status.RecordStatistics(Down);
        Assert.False(status.IsConnected(hasAssignment: true));
        Assert.Equal("2/2 brokers are down", status.Error);

        status.RecordStatistics(Up);

        Assert.True(status.IsConnected(hasAssignment: true));
        Assert.Null(status.Error);
    }

    [Fact]
    public void Statistics_with_no_broker_up_report_the_connection_down_even_without_an_error_callback()
    {
        var status = new KafkaConnectionStatus();
        status.RecordContact();

        status.RecordStatistics(Down);

        Assert.False(status.IsConnected(hasAssignment: true));
        Assert.Equal("no broker connection is up (0 of 3)", status.Error);
    }

    [Fact]
    public void A_consume_error_is_not_cleared_by_statistics_but_by_the_next_handled_message()
    {
        var status = new KafkaConnectionStatus();
        status.RecordConsumeError("Subscribed topic not available");
        status.RecordStatistics(Up);
        Assert.Equal("Subscribed topic not available", status.Error);

        status.RecordContact();

        Assert.Null(status.Error);
    }

    [Fact]
    public void Statistics_that_are_not_json_change_nothing()
    {
        var status = new KafkaConnectionStatus();
        status.RecordClientError("down");
        status.RecordStatistics("{not json");
        Assert.Equal("down", status.Error);
        Assert.False(KafkaConnectionStatus.TryCountBrokers("{not json", out _, out _));
        Assert.True(KafkaConnectionStatus.TryCountBrokers(Up, out var up, out var known));
        Assert.Equal((2, 3), (up, known));
    }
}
