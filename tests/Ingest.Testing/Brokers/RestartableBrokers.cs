using System.Diagnostics;

namespace Ingest.Testing.Brokers;

/// <summary>
/// A private Kafka and RabbitMQ, on their own ports and state directory, for tests that stop and
/// start a broker in mid-stream; the shared brokers stay up for every other test running at the
/// same time. Driven through <c>infra/scripts/brokers.sh</c>, so it needs what that script needs:
/// KAFKA_HOME for Kafka, Debian's rabbitmq-server for RabbitMQ.
/// </summary>
public sealed class RestartableBrokers : IAsyncDisposable
{
    private static readonly TimeSpan ScriptTimeout = TimeSpan.FromMinutes(3);
    private readonly string _script;
    private readonly TestDirectory _state;
    private readonly int _kafkaPort;
    private readonly int _rabbitMqPort;

    /// <param name="name">Distinguishes instances; becomes part of the RabbitMQ node name (the state directory is a <see cref="TestDirectory"/>).</param>
    /// <param name="kafkaPort">Kafka's port; the controller takes the next one.</param>
    /// <param name="rabbitMqPort">RabbitMQ's AMQP port; its distribution port is this plus 20000.</param>
    public RestartableBrokers(string name, int kafkaPort, int rabbitMqPort)
    {
        ArgumentException.ThrowIfNullOrWhiteSpace(name);
        _script = Path.Combine(FindRepositoryRoot(), "infra", "scripts", "brokers.sh");
        _state = new TestDirectory();
        Name = name;
        _kafkaPort = kafkaPort;
        _rabbitMqPort = rabbitMqPort;
    }

    public string Name { get; }

    public string KafkaBootstrap => $"127.0.0.1:{_kafkaPort}";

    public string RabbitMqUri => $"amqp://guest:guest@127.0.0.1:{_rabbitMqPort}/";

    public Task StartKafkaAsync()
    {
        if (string.IsNullOrWhiteSpace(Environment.GetEnvironmentVariable("KAFKA_HOME")))
        {
            throw new BrokerUnavailableException(
                "The broker-restart tests start a private Kafka through infra/scripts/brokers.sh and need KAFKA_HOME: " +
                "export KAFKA_HOME=/path/to/kafka (an Apache Kafka 4.x installation, e.g. ../shared/kafka), as .ci/run does.");
        }

        return RunAsync("kafka-up");
    }

    public Task StopKafkaAsync() => RunAsync("kafka-down");

    public Task StartRabbitMqAsync() => RunAsync("rabbitmq-up");

    public Task StopRabbitMqAsync() => RunAsync("rabbitmq-down");

    public async ValueTask DisposeAsync()
    {
        await RunAsync("down").ConfigureAwait(false);
        _state.Dispose();
    }

    private async Task RunAsync(string command)
    {
        var start = new ProcessStartInfo("bash", [_script, command])
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.Environment["INGEST_BROKERS_DIR"] = _state.Path;
        start.Environment["INGEST_KAFKA_PORT"] = _kafkaPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["INGEST_RABBITMQ_PORT"] = _rabbitMqPort.ToString(System.Globalization.CultureInfo.InvariantCulture);
        start.Environment["INGEST_RABBITMQ_NODE"] = $"ingest-{Name}@localhost";
        start.Environment["KAFKA_HEAP"] = "384m";
        using var process = Process.Start(start) ?? throw new InvalidOperationException($"Could not run {_script}.");
        var output = process.StandardOutput.ReadToEndAsync();
        var errors = process.StandardError.ReadToEndAsync();
        using var timeout = new CancellationTokenSource(ScriptTimeout);
        try
        {
            await process.WaitForExitAsync(timeout.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new BrokerUnavailableException($"brokers.sh {command} did not finish within {ScriptTimeout}: {await errors.ConfigureAwait(false)}");
        }

        await output.ConfigureAwait(false);
        if (process.ExitCode != 0)
        {
            throw new BrokerUnavailableException($"brokers.sh {command} failed (exit {process.ExitCode}): {await errors.ConfigureAwait(false)}");
        }
    }

    private static string FindRepositoryRoot()
    {
        for (var directory = new DirectoryInfo(AppContext.BaseDirectory); directory is not null; directory = directory.Parent)
        {
            if (File.Exists(Path.Combine(directory.FullName, "Ingest.sln")))
            {
                return directory.FullName;
            }
        }

        throw new InvalidOperationException($"No Ingest.sln above {AppContext.BaseDirectory}; the restart tests run from a checkout.");
    }
}
