using Confluent.Kafka;
using DotNet.Testcontainers.Configurations;
using DotNet.Testcontainers.Containers;
using RabbitMQ.Client;
using Testcontainers.Kafka;
using Testcontainers.RabbitMq;
using Xunit;

namespace Ingest.Testing.Brokers;

/// <summary>
/// One Kafka and one RabbitMQ for a whole test run, shared by every class in the
/// <see cref="Collection"/> collection. Each broker is resolved on first use, in this order:
/// <list type="number">
/// <item>an address from the environment (<see cref="KafkaVariable"/>, <see cref="RabbitMqVariable"/>),
/// as exported by <c>infra/scripts/brokers.sh up</c> and set by <c>.ci/run</c>;</item>
/// <item>a Testcontainers container, when a Docker engine answers; started once and used by every
/// test of the run, then removed (Testcontainers' reaper removes it too if the run dies);</item>
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

    private const string NoDockerEngine =
        "no Docker engine answers (Testcontainers looked at DOCKER_HOST, ~/.testcontainers.properties and /var/run/docker.sock)";

    private static readonly TimeSpan ReadyTimeout = TimeSpan.FromSeconds(90);

    private readonly Func<string, string?> _readVariable;
    private readonly Lazy<IDockerEndpointAuthenticationConfiguration?> _dockerEndpoint;
    private readonly Lazy<Task<KafkaBroker>> _kafka;
    private readonly Lazy<Task<RabbitMqBroker>> _rabbitMq;
    private readonly List<IContainer> _containers = [];

    public BrokerFixture()
        : this(Environment.GetEnvironmentVariable, static () => TestcontainersSettings.OS.DockerEndpointAuthConfig)
    {
    }

    /// <param name="readVariable">Reads an environment variable.</param>
    /// <param name="findDockerEndpoint">
    /// The Docker engine to start containers on, or null when none answers. Asked only when a
    /// variable is missing: Testcontainers' discovery pings every candidate endpoint.
    /// </param>
    internal BrokerFixture(Func<string, string?> readVariable, Func<IDockerEndpointAuthenticationConfiguration?> findDockerEndpoint)
    {
        _readVariable = readVariable;
        _dockerEndpoint = new Lazy<IDockerEndpointAuthenticationConfiguration?>(findDockerEndpoint);
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
        var fromEnvironment = _readVariable(KafkaVariable);
        if (!string.IsNullOrWhiteSpace(fromEnvironment))
        {
            var broker = new KafkaBroker(fromEnvironment.Trim(), $"{KafkaVariable}={fromEnvironment}");
            await WaitForKafkaAsync(broker).ConfigureAwait(false);
            return broker;
        }

        var docker = _dockerEndpoint.Value ?? throw new BrokerUnavailableException(
            $"No Kafka broker for the integration tests: {KafkaVariable} is not set and {NoDockerEngine}. " +
            $"Either export {KafkaVariable}=HOST:PORT of a running broker (`KAFKA_HOME=/path/to/kafka eval \"$(infra/scripts/brokers.sh up)\"` " +
            $"starts one on loopback), or run the tests where a Docker engine is available so they can start {KafkaImage}.");

        var container = new KafkaBuilder(KafkaImage).WithDockerEndpoint(docker).Build();
        await StartAsync(container).ConfigureAwait(false);
        // Testcontainers gives a URI (PLAINTEXT://host:port/); the clients and our tools take host:port.
        var address = new Uri(container.GetBootstrapAddress());
        var started = new KafkaBroker($"{address.Host}:{address.Port}", $"container {container.Id[..12]} ({KafkaImage})");
        await WaitForKafkaAsync(started).ConfigureAwait(false);
        return started;
    }

    private async Task<RabbitMqBroker> ResolveRabbitMqAsync()
    {
        var fromEnvironment = _readVariable(RabbitMqVariable);
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

        var docker = _dockerEndpoint.Value ?? throw new BrokerUnavailableException(
            $"No RabbitMQ broker for the integration tests: {RabbitMqVariable} is not set and {NoDockerEngine}. " +
            $"Either export {RabbitMqVariable}=amqp://USER:PASSWORD@HOST:PORT/ of a running broker (`eval \"$(infra/scripts/brokers.sh up)\"` " +
            $"installs and starts Debian's rabbitmq-server on loopback), or run the tests where a Docker engine is available so they can start {RabbitMqImage}.");

        var container = new RabbitMqBuilder(RabbitMqImage).WithDockerEndpoint(docker).Build();
        await StartAsync(container).ConfigureAwait(false);
        var started = new RabbitMqBroker(new Uri(container.GetConnectionString()), $"container {container.Id[..12]} ({RabbitMqImage})");
        await WaitForRabbitMqAsync(started).ConfigureAwait(false);
        return started;
    }

    private async Task StartAsync(IContainer container)
    {
        lock (_containers)
        {
            _containers.Add(container);
        }

        await container.StartAsync().ConfigureAwait(false);
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
