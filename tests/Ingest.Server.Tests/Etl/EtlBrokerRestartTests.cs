using Ingest.Contracts.CloudEvents;
using Ingest.Server.Etl;
using Ingest.Server.Tests.Sources;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;

namespace Ingest.Server.Tests.Etl;

/// <summary>A private broker is stopped in mid-ETL and started again: the task retries, recovers by itself and loses nothing.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class EtlBrokerRestartTests : IDisposable
{
    private const int KafkaPort = 19_592;
    private const int RabbitMqPort = 15_792;
    private const int Half = 2_000;

    private readonly TempDocumentStore _store = new();

    private string ErrorLog => _store.Beside("etl-errors.json");

    [Fact]
    public async Task A_kafka_restart_in_mid_etl_loses_nothing_and_the_task_recovers()
    {
        await using var brokers = new RestartableBrokers("etl-kafka", KafkaPort, RabbitMqPort);
        await brokers.StartKafkaAsync();
        var topic = KafkaTestKit.NewName("etl-restart");
        await KafkaTestKit.CreateTopicAsync(brokers.KafkaBootstrap, topic, 3);
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, Half));
        var definition = new EtlTaskDefinition
        {
            Name = "restart",
            Collections = ["Orders"],
            Kafka = new EtlKafkaSettings { BootstrapServers = brokers.KafkaBootstrap, Topic = topic, Settings = { ["message.timeout.ms"] = "5000" } },
            Source = EtlTestKit.Source,
        };

        await using var runner = await EtlTestKit.StartAsync(store, definition, ErrorLog);
        await EtlTestKit.WaitCaughtUpAsync(runner, store);
        await brokers.StopKafkaAsync();
        await store.WriteAsync(EtlTestKit.Orders(Half + 1, 2 * Half));
        await WaitForStateAsync(runner, EtlTaskState.Retrying);
        Assert.Equal(Half, runner.GetStatus().LastSentEtag);

        await brokers.StartKafkaAsync();
        await EtlTestKit.WaitCaughtUpAsync(runner, store);

        Assert.Equal(EtlTaskState.Running, runner.GetStatus().State);
        var ids = EtlTestKit.ConsumeKafka(brokers.KafkaBootstrap, topic, 2 * Half).Select(static r => r.Event.Id!).ToHashSet();
        Assert.Equal(Enumerable.Range(1, 2 * Half).Select(static i => $"orders/{i}@{i}").ToHashSet(), ids);
    }

    [Fact]
    public async Task A_rabbitmq_restart_in_mid_etl_loses_nothing_and_the_task_recovers()
    {
        await using var brokers = new RestartableBrokers("etl-rabbit", KafkaPort + 10, RabbitMqPort + 10);
        await brokers.StartRabbitMqAsync();
        var uri = new Uri(brokers.RabbitMqUri);
        const string exchange = "etl-restart";
        const string queue = "etl-restart-orders";
        await DeclareAsync(uri, exchange, queue);
        var store = _store.Store;
        await store.WriteAsync(EtlTestKit.Orders(1, Half));
        var definition = new EtlTaskDefinition
        {
            Name = "restart",
            Collections = ["Orders"],
            RabbitMq = new EtlRabbitMqSettings { Uri = brokers.RabbitMqUri, Exchange = exchange, RoutingKey = "orders" },
            Source = EtlTestKit.Source,
        };

        await using var runner = await EtlTestKit.StartAsync(store, definition, ErrorLog);
        await EtlTestKit.WaitCaughtUpAsync(runner, store);
        await brokers.StopRabbitMqAsync();
        await store.WriteAsync(EtlTestKit.Orders(Half + 1, 2 * Half));
        await WaitForStateAsync(runner, EtlTaskState.Retrying);
        Assert.Equal(Half, runner.GetStatus().LastSentEtag);

        await brokers.StartRabbitMqAsync();
        await EtlTestKit.WaitCaughtUpAsync(runner, store);

        await using var connection = await new ConnectionFactory { Uri = uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        var ids = new HashSet<string>();
        while (await channel.BasicGetAsync(queue, autoAck: true) is { } message)
        {
            ids.Add(AmqpCloudEventBinding.Decode(message.BasicProperties.ContentType, message.BasicProperties.Headers!, message.Body).Id!);
        }

        Assert.Equal(Enumerable.Range(1, 2 * Half).Select(static i => $"orders/{i}@{i}").ToHashSet(), ids);
    }

    private static async Task DeclareAsync(Uri uri, string exchange, string queue)
    {
        await using var connection = await new ConnectionFactory { Uri = uri }.CreateConnectionAsync();
        await using var channel = await connection.CreateChannelAsync();
        await channel.ExchangeDeclareAsync(exchange, ExchangeType.Direct, durable: true, autoDelete: false);
        await channel.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);
        await channel.QueueBindAsync(queue, exchange, "orders");
    }

    private static async Task WaitForStateAsync(EtlTaskRunner runner, EtlTaskState state)
    {
        using var timeout = new CancellationTokenSource(EtlTestKit.Patience);
        while (runner.GetStatus().State != state)
        {
            await Task.Delay(50, timeout.Token);
        }
    }

    public void Dispose() => _store.Dispose();
}
