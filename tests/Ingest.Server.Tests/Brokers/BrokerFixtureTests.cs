using DotNet.Testcontainers.Configurations;
using Ingest.Testing.Brokers;

namespace Ingest.Server.Tests.Brokers;

/// <summary>How the shared fixture picks a broker: the environment first, Docker only without it, else a failure that helps.</summary>
public sealed class BrokerFixtureTests
{
    private static readonly Func<string, string?> NoVariables = static _ => null;
    private static readonly Func<IDockerEndpointAuthenticationConfiguration?> NoDockerEngine = static () => null;

    private static readonly Func<IDockerEndpointAuthenticationConfiguration?> DockerMustNotBeAsked =
        static () => throw new InvalidOperationException("the fixture looked for a Docker engine although the environment names a broker");

    [Fact]
    public async Task Without_a_variable_or_a_Docker_engine_the_Kafka_failure_says_how_to_provide_a_broker()
    {
        var fixture = new BrokerFixture(NoVariables, NoDockerEngine);

        var error = await Assert.ThrowsAsync<BrokerUnavailableException>(fixture.GetKafkaAsync);

        Assert.Contains($"{BrokerFixture.KafkaVariable} is not set and no Docker engine answers", error.Message, StringComparison.Ordinal);
        Assert.Contains($"export {BrokerFixture.KafkaVariable}=HOST:PORT", error.Message, StringComparison.Ordinal);
        Assert.Contains("infra/scripts/brokers.sh up", error.Message, StringComparison.Ordinal);
        Assert.Contains($"a Docker engine is available so they can start {BrokerFixture.KafkaImage}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Without_the_secure_listener_variables_the_tls_tests_fail_naming_each_and_how_to_start_them()
    {
        var error = Assert.Throws<BrokerUnavailableException>(() => SecureBrokers.From(v => v == SecureBrokers.ScramUserVariable ? "ingest" : null));

        foreach (var variable in new[] { SecureBrokers.KafkaSaslSslVariable, SecureBrokers.KafkaSslVariable, SecureBrokers.ScramPasswordVariable, SecureBrokers.RabbitMqTlsVariable, SecureBrokers.CaVariable })
        {
            Assert.Contains(variable, error.Message, StringComparison.Ordinal);
        }

        Assert.DoesNotContain(SecureBrokers.ScramUserVariable, error.Message, StringComparison.Ordinal);
        Assert.Contains("eval \"$(infra/scripts/brokers.sh up --secure)\"", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task Without_a_variable_or_a_Docker_engine_the_RabbitMq_failure_says_how_to_provide_a_broker()
    {
        var fixture = new BrokerFixture(NoVariables, NoDockerEngine);

        var error = await Assert.ThrowsAsync<BrokerUnavailableException>(fixture.GetRabbitMqAsync);

        Assert.Contains($"{BrokerFixture.RabbitMqVariable} is not set and no Docker engine answers", error.Message, StringComparison.Ordinal);
        Assert.Contains($"export {BrokerFixture.RabbitMqVariable}=amqp://", error.Message, StringComparison.Ordinal);
        Assert.Contains("infra/scripts/brokers.sh up", error.Message, StringComparison.Ordinal);
        Assert.Contains($"a Docker engine is available so they can start {BrokerFixture.RabbitMqImage}", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_RabbitMq_variable_that_is_not_an_amqp_uri_is_refused_without_falling_back_to_Docker()
    {
        var fixture = new BrokerFixture(
            static name => name == BrokerFixture.RabbitMqVariable ? "http://127.0.0.1:15672/" : null, DockerMustNotBeAsked);

        var error = await Assert.ThrowsAsync<BrokerUnavailableException>(fixture.GetRabbitMqAsync);

        Assert.Equal($"{BrokerFixture.RabbitMqVariable}='http://127.0.0.1:15672/' is not an amqp:// or amqps:// URI.", error.Message);
    }

    [Fact]
    public async Task A_Kafka_broker_named_by_the_environment_is_used_without_looking_for_Docker()
    {
        // The real broker this run was given; without one the integration tests cannot run anyway.
        var address = Environment.GetEnvironmentVariable(BrokerFixture.KafkaVariable)
            ?? throw new BrokerUnavailableException($"This test needs {BrokerFixture.KafkaVariable}=HOST:PORT of a running broker.");
        var fixture = new BrokerFixture(name => name == BrokerFixture.KafkaVariable ? address : null, DockerMustNotBeAsked);

        var broker = await fixture.GetKafkaAsync();

        Assert.Equal(address.Trim(), broker.BootstrapServers);
        Assert.Equal($"{BrokerFixture.KafkaVariable}={address}", broker.Origin);
    }
}
