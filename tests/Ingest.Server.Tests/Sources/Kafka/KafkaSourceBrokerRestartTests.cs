using Ingest.Documents;
using Ingest.Testing.Brokers;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources.Kafka;

/// <summary>A private Kafka that is stopped and started again while the source runs.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class KafkaSourceBrokerRestartTests
{
    private const int KafkaPort = 19392;
    private const int UnusedRabbitMqPort = 19672;
    private const int IdleKafkaPort = 19394;

    [Fact]
    public async Task Messages_produced_before_and_after_a_broker_restart_all_land()
    {
        const int Half = 5_000;
        await using var brokers = new RestartableBrokers("kafka-source", KafkaPort, UnusedRabbitMqPort);
        await brokers.StartKafkaAsync();
        var bootstrap = brokers.KafkaBootstrap;
        var topic = NewName("src-restart");
        await CreateTopicAsync(bootstrap, topic, 3);
        await ProduceAsync(bootstrap, topic, KafkaSourceTests.Sequence(0, Half));

        using var temp = new TempDocumentStore();
        var origin = $"restart/{topic}";
        await using var source = Source("restart", Options(bootstrap, topic, NewName("group")), temp.Store);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == Half, TimeSpan.FromSeconds(120), "the first half stored");

        await brokers.StopKafkaAsync();
        await WaitUntilAsync(() => source.GetStatus().Error is not null, TimeSpan.FromSeconds(60), "the source reports the broker gone");
        Assert.False(source.GetStatus().Connected);

        await brokers.StartKafkaAsync();
        await ProduceAsync(bootstrap, topic, KafkaSourceTests.Sequence(Half, Half));
        await WaitUntilAsync(() => StoredTotal(temp.Store, origin) == 2 * Half, TimeSpan.FromSeconds(120), "the second half stored");
        await WaitUntilAsync(() => source.GetStatus() is { Connected: true, Error: null }, TimeSpan.FromSeconds(60), "the source reports itself connected");
        using (var patience = new CancellationTokenSource(TimeSpan.FromSeconds(60)))
        {
            await source.StopAsync(patience.Token);
        }

        Assert.Equal(2 * Half, temp.Store.LastEtag);
        for (var i = 0; i < 2 * Half; i++)
        {
            Assert.NotNull(temp.Store.Get(i.ToString(System.Globalization.CultureInfo.InvariantCulture)));
        }
    }

    [Fact]
    public async Task On_an_idle_topic_the_status_is_connected_again_within_seconds_of_a_broker_restart()
    {
        await using var brokers = new RestartableBrokers("kafka-idle", IdleKafkaPort, UnusedRabbitMqPort);
        await brokers.StartKafkaAsync();
        var bootstrap = brokers.KafkaBootstrap;
        var topic = NewName("src-idle");
        await CreateTopicAsync(bootstrap, topic, 1);
        using var temp = new TempDocumentStore();
        // The client's default session timeout: the group outlives the restart, so no rebalance
        // (whose assignment would also report the source connected) follows it.
        var options = Options(bootstrap, topic, NewName("group"));
        options.Settings.Clear();
        await using var source = Source("idle", options, temp.Store);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => source.GetStatus() is { Connected: true, Error: null }, TimeSpan.FromSeconds(60), "the source connected");

        await brokers.StopKafkaAsync();
        await WaitUntilAsync(() => source.GetStatus() is { Connected: false, Error: not null }, TimeSpan.FromSeconds(60), "the source reports the broker gone");

        // No message is produced: only the connection itself can tell the source it is back.
        await brokers.StartKafkaAsync();
        await WaitUntilAsync(() => source.GetStatus() is { Connected: true, Error: null }, TimeSpan.FromSeconds(30), "the source reports itself connected again");
        Assert.Equal(0, source.GetStatus().Consumed);
    }
}
