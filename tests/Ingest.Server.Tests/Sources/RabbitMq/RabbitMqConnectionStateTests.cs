using Ingest.Server.Sources.RabbitMq;
using Microsoft.Extensions.Logging.Abstractions;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Ingest.Server.Tests.Sources.RabbitMq;

public sealed class RabbitMqConnectionStateTests
{
    private static readonly ShutdownEventArgs BrokerGone = new(ShutdownInitiator.Peer, 320, "CONNECTION_FORCED - shutdown");

    [Fact]
    public void A_lost_connection_is_down_with_its_reason_and_void_tags_until_recovery_brings_it_back_without_a_message()
    {
        var state = new RabbitMqConnectionState("src", NullLogger.Instance);
        var generation = state.NextGeneration();
        state.RecordConnected();

        state.OnConnectionShutdown(BrokerGone);
        Assert.False(state.IsUp);
        Assert.Equal("connection lost (320 CONNECTION_FORCED - shutdown); reconnecting", state.Error);
        Assert.True(state.Generation > generation);

        state.OnRecoveryError(new IOException("connection refused"));
        Assert.Equal("reconnecting failed: connection refused", state.Error);

        state.OnRecoverySucceeded();
        Assert.True(state.IsUp);
        Assert.Null(state.Error);
    }

    [Fact]
    public void Closing_by_the_application_changes_nothing()
    {
        var state = new RabbitMqConnectionState("src", NullLogger.Instance);
        state.RecordConnected();
        var generation = state.Generation;

        state.OnConnectionShutdown(new ShutdownEventArgs(ShutdownInitiator.Application, 200, "ingest source stopping"));

        Assert.True(state.IsUp);
        Assert.Equal(generation, state.Generation);
    }

    [Fact]
    public void Only_a_channel_the_broker_closes_while_the_connection_stays_up_asks_for_a_new_session()
    {
        var state = new RabbitMqConnectionState("src", NullLogger.Instance);
        state.RecordConnected();
        var closedByBroker = new ShutdownEventArgs(ShutdownInitiator.Peer, 406, "PRECONDITION_FAILED - unknown delivery tag");

        Assert.False(state.OnChannelShutdown(closedByBroker, stopping: false, connectionOpen: false));
        Assert.False(state.OnChannelShutdown(closedByBroker, stopping: true, connectionOpen: true));
        Assert.True(state.IsUp);

        Assert.True(state.OnChannelShutdown(closedByBroker, stopping: false, connectionOpen: true));
        Assert.False(state.IsUp);
        Assert.Equal("channel closed by the broker (406 PRECONDITION_FAILED - unknown delivery tag); reconnecting", state.Error);
    }

    [Fact]
    public void A_failed_connect_is_down_and_starts_a_new_generation()
    {
        var state = new RabbitMqConnectionState("src", NullLogger.Instance);
        var generation = state.Generation;

        state.RecordConnectFailed("broker unreachable: connection refused");

        Assert.False(state.IsUp);
        Assert.Equal("broker unreachable: connection refused", state.Error);
        Assert.Equal(generation + 1, state.Generation);
    }
}
