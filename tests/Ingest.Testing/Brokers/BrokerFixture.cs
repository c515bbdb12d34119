using Confluent.Kafka;
using RabbitMQ.Client;
using Xunit;

namespace Ingest.Testing.Brokers;

/// <summary>
/// One Kafka and one RabbitMQ for a whole test run, shared by every class in the
/// <see cref="Collection"/> collection. Each broker is resolved on first use, in this order:
/// <list type="number">
/// <item>an address from the environment (<see cref="KafkaVariable"/>, <see cref="RabbitMqVariable"/>),
/// as exported by <c>infra/scripts/brokers.sh up</c> and set by <c>.ci/run</c>;</item>
/// <item>a container started on a Docker engine, when one answers;</item>
/// <item>otherwise the test fails with a message that says how to provide a broker. Never a skip.</item>
/// </list>
/// </summary>
public sealed class BrokerFixture : IAsyncLifetime
{
    public const string Collection = "brokers";
    public const string KafkaVariable = "INGEST_TEST_KAFKA";
    public const string RabbitMqVariable = "INGEST_TEST_RABBITMQ";
    public const string KafkaImage = "apache/kafka:4.1.0";
    public const string RabbitMqImage = "rabbitmq:3.13";

    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(90);

    private readonly Lazy<Task<KafkaBroker>> _kafka;
    private readonly Lazy<Task<RabbitMqBroker>> _rabbitMq;
    private readonly List<DockerContainer> _containers = [];
    private readonly Lazy<Task<(bool Available, string Reason)>> _docker = new(DockerContainer.ProbeEngineAsync);

    public BrokerFixture()
    {
        _kafka = new Lazy<Task<KafkaBroker>>(ResolveKafkaAsync);
        _rabbitMq = new Lazy<Task<RabbitMqBroker>>(ResolveRabbitMqAsync);
    }

    public Task<KafkaBroker> GetKafkaAsync() => _kafka.Value;

    public Task<RabbitMqBroker> GetRabbitMqAsync() => _rabbitMq.Value;

    public Task InitializeAsync() => Task.CompletedTask;

    public async Task DisposeAsync()
    {
        foreach (var container in _containers)
        {
            await container.DisposeAsync().ConfigureAwait(false);
        }
    }

    private async Task<KafkaBroker> ResolveKafkaAsync()
    {
        var fromEnvironment = Environment.GetEnvironmentVariable(KafkaVariable);
        if (!string.IsNullOrWhiteSpace(fromEnvironment))
        {
            var broker = new KafkaBroker(fromEnvironment.Trim(), $"{KafkaVariable}={fromEnvironment}");
            await WaitForKafkaAsync(broker).ConfigureAwait(false);
            return broker;
        }

        var (dockerAvailable, reason) = await _docker.Value.ConfigureAwait(false);
        if (!dockerAvailable)
        {
            throw new BrokerUnavailableException(
                $"No Kafka broker for the integration tests: {KafkaVariable} is not set and no Docker engine answers ({reason}). " +
                $"Either export {KafkaVariable}=HOST:PORT of a running broker (`KAFKA_HOME=/path/to/kafka eval \"$(infra/scripts/brokers.sh up)\"` " +
                $"starts one on loopback), or run the tests where a Docker engine is available so they can start {KafkaImage}.");
        }

        var port = DockerContainer.FreeLoopbackPort();
        var container = await StartContainerAsync(KafkaImage,
        [
            "--publish", $"127.0.0.1:{port}:{port}",
            "--env", "KAFKA_NODE_ID=1",
            "--env", "KAFKA_PROCESS_ROLES=broker,controller",
            "--env", $"KAFKA_LISTENERS=PLAINTEXT://0.0.0.0:{port},CONTROLLER://localhost:9093",
            "--env", $"KAFKA_ADVERTISED_LISTENERS=PLAINTEXT://127.0.0.1:{port}",
            "--env", "KAFKA_CONTROLLER_LISTENER_NAMES=CONTROLLER",
            "--env", "KAFKA_LISTENER_SECURITY_PROTOCOL_MAP=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "--env", "KAFKA_CONTROLLER_QUORUM_VOTERS=1@localhost:9093",
            "--env", "KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR=1",
            "--env", "KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR=1",
            "--env", "KAFKA_TRANSACTION_STATE_LOG_MIN_ISR=1",
            "--env", "KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS=0",
        ]).ConfigureAwait(false);
        var started = new KafkaBroker($"127.0.0.1:{port}", $"container {container.Id[..12]} ({KafkaImage})");
        await WaitForKafkaAsync(started).ConfigureAwait(false);
        return started;
    }

    private async Task<RabbitMqBroker> ResolveRabbitMqAsync()
    {
        var fromEnvironment = Environment.GetEnvironmentVariable(RabbitMqVariable);
        if (!string.IsNullOrWhiteSpace(fromEnvironment))
        {
            if (!Uri.TryCreate(fromEnvironment.Trim(), UriKind.Absolute, out var uri) || (uri.Scheme != "amqp" && uri.Scheme != "amqps"))
            {
                throw new BrokerUnavailableException($"{RabbitMqVariable}='{fromEnvironment}' is not an amqp:// or amqps:// URI.");
            }

            var broker = new RabbitMqBroker(uri, $"{RabbitMqVariable}={fromEnvironment}");
            await WaitForRabbitMqAsync(broker).ConfigureAwait(false);
            return broker;
        }

        var (dockerAvailable, reason) = await _docker.Value.ConfigureAwait(false);
        if (!dockerAvailable)
        {
            throw new BrokerUnavailableException(
                $"No RabbitMQ broker for the integration tests: {RabbitMqVariable} is not set and no Docker engine answers ({reason}). " +
                $"Either export {RabbitMqVariable}=amqp://USER:PASSWORD@HOST:PORT/ of a running broker (`eval \"$(infra/scripts/brokers.sh up)\"` " +
                $"installs and starts Debian's rabbitmq-server on loopback), or run the tests where a Docker engine is available so they can start {RabbitMqImage}.");
        }

        var port = DockerContainer.FreeLoopbackPort();
        var container = await StartContainerAsync(RabbitMqImage, ["--publish", $"127.0.0.1:{port}:5672"]).ConfigureAwait(false);
        var started = new RabbitMqBroker(new Uri($"amqp://guest:guest@127.0.0.1:{port}/"), $"container {container.Id[..12]} ({RabbitMqImage})");
        await WaitForRabbitMqAsync(started).ConfigureAwait(false);
        return started;
    }

    private async Task<DockerContainer> StartContainerAsync(string image, IReadOnlyList<string> arguments)
    {
        var container = await DockerContainer.StartAsync(image, arguments).ConfigureAwait(false);
        lock (_containers)
        {
            _containers.Add(container);
        }

        return container;
    }

    private static async Task WaitForKafkaAsync(KafkaBroker broker)
    {
        var config = new AdminClientConfig { BootstrapServers = broker.BootstrapServers, SocketTimeoutMs = 5000 };
        using var admin = new AdminClientBuilder(config).SetLogHandler(static (_, _) => { }).Build();
        var deadline = DateTime.UtcNow + ReadyTimeout;
        Exception? last = null;
        while (DateTime.UtcNow < deadline)
        {
            try
            {
                var metadata = admin.GetMetadata(TimeSpan.FromSeconds(5));
                if (metadata.Brokers.Count > 0)
                {
                    return;
                }
            }
            catch (KafkaException ex)
            {
                last = ex;
            }

            await Task.Delay(500).ConfigureAwait(false);
        }

        throw new BrokerUnavailableException(
            $"Kafka from {broker.Origin} did not answer within {ReadyTimeout.TotalSeconds:0} s: {last?.Message}. " +
            "Is the broker running? (`infra/scripts/brokers.sh status`)", last ?? new TimeoutException());
    }

    private static async Task WaitForRabbitMqAsync(RabbitMqBroker broker)
    {
        var factory = new ConnectionFactory { Uri = broker.Uri };
        var deadline = DateTime.UtcNow + ReadyTimeout;
        Exception? last = null;
        while (DateTime.UtcNow < deadline)
        {
            try
            {
                await using var connection = await factory.CreateConnectionAsync().ConfigureAwait(false);
                return;
            }
            catch (RabbitMQ.Client.Exceptions.BrokerUnreachableException ex)
            {
                last = ex;
            }

            await Task.Delay(500).ConfigureAwait(false);
        }

        throw new BrokerUnavailableException(
            $"RabbitMQ from {broker.Origin} did not answer within {ReadyTimeout.TotalSeconds:0} s: {last?.InnerException?.Message ?? last?.Message}. " +
            "Is the broker running? (`infra/scripts/brokers.sh status`)", last ?? new TimeoutException());
    }
}
