using System.Diagnostics;
using System.Globalization;
using System.Text;
using Ingest.Contracts.DeadLetters;
using Ingest.Documents;
using Ingest.Server.Batching;
using Ingest.Server.Sources;
using Ingest.Server.Sources.RabbitMq;
using Ingest.Server.Tests.Hosting;
using Ingest.Testing.Brokers;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging.Abstractions;
using RabbitMQ.Client;
using Xunit.Abstractions;

namespace Ingest.Server.Tests.Sources.RabbitMq;

/// <summary>The RabbitMQ source against a real broker, writing into a real document store.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class RabbitMqSourceTests(BrokerFixture brokers, ITestOutputHelper output)
{
    private static readonly TimeSpan Timeout = TimeSpan.FromSeconds(120);

    [Fact]
    public async Task Prefetch_is_at_least_the_batch_size_and_an_unstarted_source_disposes_cleanly()
    {
        using var temp = new TempDocumentStore();
        var options = new RabbitMqSourceOptions { Uri = "amqp://guest:guest@127.0.0.1:1/", Queues = ["q"], Prefetch = 100 };

        var source = new RabbitMqSource("r", options, temp.Store, new BatchingOptions { MaxMessages = 5_000 }, NullLoggerFactory.Instance, TimeProvider.System);
        Assert.Equal(5_000, source.Prefetch);
        await source.DisposeAsync();
        await source.DisposeAsync();

        await using var small = new RabbitMqSource("r", options, temp.Store, new BatchingOptions { MaxMessages = 10 }, NullLoggerFactory.Instance, TimeProvider.System);
        Assert.Equal(100, small.Prefetch);
    }

    [Fact]
    public async Task A_hundred_thousand_messages_become_documents_with_exact_ids_collections_and_bodies_and_all_are_acked()
    {
        const int count = 100_000;
        const int configuredCount = 1_000;
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"src-many-{Guid.NewGuid():N}";
        var configuredQueue = $"src-conf-{Guid.NewGuid():N}";
        using var temp = new TempDocumentStore();
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await client.DeclareAsync(configuredQueue);

        var batching = new BatchingOptions();
        await using var source = new RabbitMqSource(
            "many", new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [queue], IdProperty = "key" },
            temp.Store, batching, NullLoggerFactory.Instance, TimeProvider.System);
        await using var configured = new RabbitMqSource(
            "configured", new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [configuredQueue], Collection = "configured-collection" },
            temp.Store, batching, NullLoggerFactory.Instance, TimeProvider.System);
        await source.StartAsync(CancellationToken.None);
        await configured.StartAsync(CancellationToken.None);
        Assert.True(source.GetStatus().Connected);

        var started = Stopwatch.StartNew();
        await client.PublishAsync(queue, count, ManyMessage);
        await client.PublishAsync(configuredQueue, configuredCount, i => (new BasicProperties { MessageId = $"conf-{i}" }, Body(i)));
        await WaitUntilAsync(() => source.GetStatus().Written >= count && configured.GetStatus().Written >= configuredCount, "all documents written");
        var elapsed = started.Elapsed;

        await source.StopAsync(CancellationToken.None);
        await configured.StopAsync(CancellationToken.None);

        // The source's connection is closed, so anything unacknowledged would be back in the queue.
        Assert.Equal(0u, await client.ReadyAsync(queue));
        Assert.Equal(0u, await client.ReadyAsync(configuredQueue));

        using (var reader = temp.Store.BeginRead())
        {
            for (var i = 0; i < count; i++)
            {
                var (id, collection) = ExpectedMany(i, queue);
                var document = reader.Get(id);
                Assert.True(document is not null, $"message {i}: document '{id}' is missing");
                Assert.Equal(collection, document.Collection);
                Assert.True(document.Body.Span.SequenceEqual(Body(i)), $"message {i}: body differs");
            }

            for (var i = 0; i < configuredCount; i++)
            {
                var document = reader.Get($"conf-{i}");
                Assert.NotNull(document);
                Assert.Equal("configured-collection", document.Collection);
            }
        }

        var status = source.GetStatus();
        Assert.Equal(count, status.Written);
        Assert.Equal(0, status.DeadLetters);
        Assert.True(status.Consumed >= count);
        Assert.Equal(queue, Assert.Single(status.Partitions).Name);
        Assert.Equal(count + configuredCount, temp.Store.GetStats().DocumentCount);
        Assert.True(elapsed < Timeout, $"took {elapsed}");
        await client.DeleteAsync(queue);
        await client.DeleteAsync(configuredQueue);
    }

    [Fact]
    public async Task An_ingest_op_delete_header_deletes_the_document()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"src-delete-{Guid.NewGuid():N}";
        using var temp = new TempDocumentStore();
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await using var source = new RabbitMqSource(
            "deletes", new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [queue] },
            temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System);
        await source.StartAsync(CancellationToken.None);

        await client.PublishAsync(queue, 10, i => (new BasicProperties { MessageId = $"d-{i}" }, Body(i)));
        await client.PublishAsync(queue, 5, i => (
            new BasicProperties { MessageId = $"d-{i * 2}", Headers = new Dictionary<string, object?> { ["ingest-op"] = "delete" } },
            "ignored"u8.ToArray()));
        await WaitUntilAsync(() => source.GetStatus().Written >= 15, "puts and deletes written");
        await source.StopAsync(CancellationToken.None);

        for (var i = 0; i < 10; i++)
        {
            var document = temp.Store.Get($"d-{i}");
            if (i % 2 == 0)
            {
                Assert.Null(document);
            }
            else
            {
                Assert.NotNull(document);
            }
        }

        Assert.Equal(0, source.GetStatus().DeadLetters);
        Assert.Equal(0u, await client.ReadyAsync(queue));
        await client.DeleteAsync(queue);
    }

    [Fact]
    public async Task Poison_messages_become_dead_letters_with_reasons_and_their_envelopes_hold_the_original_message()
    {
        const int count = 2_000;
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"src-poison-{Guid.NewGuid():N}";
        using var temp = new TempDocumentStore();
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await using var source = new RabbitMqSource(
            "poison", new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [queue], IdProperty = "key", MaxBodyBytes = 256 },
            temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System);
        await source.StartAsync(CancellationToken.None);

        await client.PublishAsync(queue, count, PoisonOrGood);
        const int poison = count / 10;
        await WaitUntilAsync(() => source.GetStatus() is { } s && s.Written + s.DeadLetters >= count, "every message written or dead-lettered");
        await source.StopAsync(CancellationToken.None);

        var status = source.GetStatus();
        Assert.Equal(count - poison, status.Written);
        Assert.Equal(poison, status.DeadLetters);
        for (var i = 0; i < count; i++)
        {
            if (i % 10 != 5)
            {
                var document = temp.Store.Get($"good-{i}");
                Assert.True(document is not null, $"good message {i} is missing");
                Assert.True(document.Body.Span.SequenceEqual(Body(i)));
            }
        }

        var deadLetters = temp.Store.GetDeadLetters(0, 1_000);
        Assert.Equal(poison, deadLetters.Count);
        var seen = new HashSet<int>();
        foreach (var deadLetter in deadLetters)
        {
            Assert.Equal($"poison/{queue}", deadLetter.Position.Source);
            Assert.True(DeadLetterEnvelope.TryDecode(deadLetter.Raw.Span, out var envelope, out var error), error);
            Assert.Equal(queue, envelope.Destination);
            Assert.Null(envelope.Key);
            Assert.True(envelope.TryGetValue("trace", out var trace));
            var i = int.Parse(Encoding.UTF8.GetString(trace)[2..], CultureInfo.InvariantCulture);
            Assert.True(seen.Add(i));
            Assert.True(envelope.TryGetValue("attempt", out var attempt));
            Assert.Equal(i.ToString(CultureInfo.InvariantCulture), Encoding.UTF8.GetString(attempt));
            var (properties, body) = PoisonOrGood(i);
            Assert.Equal(properties.MessageId, envelope.MessageId);
            Assert.Equal(body, envelope.Body);
            var expectedReason = ((i / 10) % 4) switch
            {
                0 => "not JSON",
                1 => "no document id",
                2 => "unknown operation",
                _ => "too large",
            };
            Assert.StartsWith(expectedReason, deadLetter.Reason, StringComparison.Ordinal);
            if ((i / 10) % 4 == 2)
            {
                Assert.True(envelope.TryGetValue("ingest-op", out var op));
                Assert.Equal("upsert", Encoding.UTF8.GetString(op));
            }
        }

        Assert.Equal(poison, seen.Count);
        Assert.Equal(0u, await client.ReadyAsync(queue));
        await client.DeleteAsync(queue);
    }

    [Fact]
    public async Task A_source_started_before_its_broker_connects_later_and_another_survives_a_broker_restart_mid_stream()
    {
        const int late = 100;
        const int first = 60_000;
        const int rest = 2_000;
        await using var broker = new RestartableBrokers("rabbit-source", kafkaPort: 19_871, rabbitMqPort: 15_772);
        var uri = new Uri(broker.RabbitMqUri);
        var queue = $"src-restart-{Guid.NewGuid():N}";
        using var temp = new TempDocumentStore();
        var options = new RabbitMqSourceOptions { Uri = broker.RabbitMqUri, Queues = [queue], Prefetch = 200 };

        // No broker yet: start returns, the status says why nothing is consumed, and the source
        // keeps trying until the broker is there.
        await using (var early = new RabbitMqSource("early", options, temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System))
        {
            await early.StartAsync(CancellationToken.None).WaitAsync(TimeSpan.FromSeconds(30));
            var down = early.GetStatus();
            Assert.False(down.Connected);
            Assert.NotNull(down.Error);

            await broker.StartRabbitMqAsync();
            await WaitUntilAsync(() => early.GetStatus().Connected, "the source connected once the broker was up");
            Assert.Null(early.GetStatus().Error);
            await using (var client = await AmqpTestClient.ConnectAsync(uri))
            {
                await client.PublishAsync(queue, late, i => (new BasicProperties { MessageId = $"late-{i}" }, Body(i)));
            }

            await WaitUntilAsync(() => early.GetStatus().Written >= late, "messages written by the late-connected source");
            await early.StopAsync(CancellationToken.None);
        }

        // A backlog, so the broker goes down with messages still queued and delivered-but-unacked.
        await using (var client = await AmqpTestClient.ConnectAsync(uri))
        {
            await client.PublishAsync(queue, first, i => (new BasicProperties { MessageId = $"r-{i}" }, Body(i)));
        }

        await using var source = new RabbitMqSource(
            "restart", options, temp.Store, new BatchingOptions { MaxMessages = 10, MaxPendingBatches = 1 }, NullLoggerFactory.Instance, TimeProvider.System);
        await source.StartAsync(CancellationToken.None);
        await WaitUntilAsync(() => source.GetStatus().Written >= 1_000, "part of the backlog written");
        var stopping = broker.StopRabbitMqAsync();
        await WaitUntilAsync(() => !source.GetStatus().Connected, "the source noticed the broker is gone");
        var writtenWhenDisconnected = source.GetStatus().Written;
        await stopping;
        output.WriteLine($"{writtenWhenDisconnected} of {first} messages were written when the connection dropped");
        Assert.True(writtenWhenDisconnected < first, $"all {first} messages were written before the broker stopped; the restart was not mid-stream");

        await broker.StartRabbitMqAsync();
        await using (var client = await AmqpTestClient.ConnectAsync(uri))
        {
            await client.PublishAsync(queue, rest, i => (new BasicProperties { MessageId = $"r-{first + i}" }, Body(first + i)));
        }

        await WaitUntilAsync(() => temp.Store.GetStats().DocumentCount >= late + first + rest, "every message from before and after the restart stored");
        output.WriteLine($"consumed {source.GetStatus().Consumed} deliveries for {first + rest} messages (redeliveries after the restart included)");
        Assert.True(source.GetStatus().Connected);
        await source.StopAsync(CancellationToken.None);

        for (var i = 0; i < first + rest; i++)
        {
            var document = temp.Store.Get($"r-{i}");
            Assert.True(document is not null, $"message {i} is missing");
            Assert.True(document.Body.Span.SequenceEqual(Body(i)));
        }

        Assert.Equal(late + first + rest, temp.Store.GetStats().DocumentCount);
        await using var check = await AmqpTestClient.ConnectAsync(uri);
        Assert.Equal(0u, await check.ReadyAsync(queue));
    }

    [Fact]
    public async Task On_an_idle_queue_the_status_is_connected_again_within_seconds_of_a_broker_restart()
    {
        await using var broker = new RestartableBrokers("rabbit-idle", kafkaPort: 19_873, rabbitMqPort: 15_774);
        await broker.StartRabbitMqAsync();
        using var temp = new TempDocumentStore();
        var options = new RabbitMqSourceOptions { Uri = broker.RabbitMqUri, Queues = [$"src-idle-{Guid.NewGuid():N}"] };
        await using var source = new RabbitMqSource("idle", options, temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System);
        await source.StartAsync(CancellationToken.None);
        Assert.True(source.GetStatus().Connected);

        await broker.StopRabbitMqAsync();
        await WaitUntilAsync(() => source.GetStatus() is { Connected: false, Error: not null }, "the source reports the broker gone");

        // Nothing is published: only the recovered connection can tell the source it is back.
        await broker.StartRabbitMqAsync();
        var back = Stopwatch.StartNew();
        await WaitUntilAsync(() => source.GetStatus() is { Connected: true, Error: null }, "the source reports itself connected again");
        output.WriteLine($"connected again {back.Elapsed.TotalSeconds:0.0} s after the broker was up");
        Assert.True(back.Elapsed < TimeSpan.FromSeconds(30), $"took {back.Elapsed}");
        Assert.Equal(0, source.GetStatus().Consumed);
    }

    [Fact]
    public async Task A_queue_that_exists_with_other_arguments_is_reported_by_name_in_the_status()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"src-args-{Guid.NewGuid():N}";
        using var temp = new TempDocumentStore();
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue, new Dictionary<string, object?> { ["x-max-length"] = 1_000 });
        await using var source = new RabbitMqSource(
            "args", new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [queue] },
            temp.Store, new BatchingOptions(), NullLoggerFactory.Instance, TimeProvider.System);

        await source.StartAsync(CancellationToken.None);

        var status = source.GetStatus();
        Assert.False(status.Connected);
        Assert.NotNull(status.Error);
        Assert.Contains($"queue '{queue}' exists with other settings", status.Error, StringComparison.Ordinal);
        await source.StopAsync(CancellationToken.None);
        await client.DeleteAsync(queue);
    }

    [Fact]
    public async Task While_a_backlog_is_consumed_in_tiny_batches_the_broker_never_has_more_than_the_prefetch_unacknowledged()
    {
        const int count = 3_000;
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"src-qos-{Guid.NewGuid():N}";
        using var temp = new TempDocumentStore();
        await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        await client.DeclareAsync(queue);
        await client.PublishAsync(queue, count, i => (new BasicProperties { MessageId = $"q-{i}" }, Body(i)));
        var batching = new BatchingOptions { MaxMessages = 10, MaxPendingBatches = 1 };
        await using var source = new RabbitMqSource(
            "qos", new RabbitMqSourceOptions { Uri = rabbit.Uri.ToString(), Queues = [queue], Prefetch = 20 },
            temp.Store, batching, NullLoggerFactory.Instance, TimeProvider.System);
        Assert.Equal(20, source.Prefetch);
        await source.StartAsync(CancellationToken.None);

        // Unacknowledged at the broker >= published - ready - acknowledged by us, when our ack
        // count is read after the broker's ready count (acks we sent meanwhile only lower it).
        // So this lower bound can never exceed the prefetch while the broker honours it, however
        // slow the sampling; without the prefetch limit the broker sends the whole backlog at
        // once and the bound jumps towards the backlog.
        long highest = 0;
        var samples = 0;
        var deadline = Stopwatch.StartNew();
        while (source.Acknowledged < count && deadline.Elapsed < Timeout)
        {
            var ready = await client.ReadyAsync(queue);
            var acknowledged = source.Acknowledged;
            highest = Math.Max(highest, count - ready - acknowledged);
            samples++;
        }

        Assert.Equal(count, source.Acknowledged);
        Assert.True(samples > 10, $"only {samples} samples");
        Assert.True(highest <= source.Prefetch, $"at least {highest} messages were unacknowledged at the broker at once; the prefetch is {source.Prefetch}");

        // The queue's depth is sampled in the background and reported as the lag.
        await WaitUntilAsync(() => source.GetStatus().Partitions[0].Lag == 0, "the lag reported as 0 once the backlog is consumed");
        await source.StopAsync(CancellationToken.None);
        Assert.Equal(count, temp.Store.GetStats().DocumentCount);
        Assert.Equal(0u, await client.ReadyAsync(queue));
        await client.DeleteAsync(queue);
    }

    [Fact]
    public async Task The_host_runs_a_configured_rabbitmq_source_into_its_store()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var queue = $"src-host-{Guid.NewGuid():N}";
        using var testDirectory = new TestDirectory();
        var dataDirectory = testDirectory.Path;
        await using (var server = await RunningServer.StartAsync(
            dataDirectory, $"--Ingest:Sources:RabbitMq:0:Uri={rabbit.Uri}", $"--Ingest:Sources:RabbitMq:0:Queues:0={queue}"))
        {
            await using var client = await AmqpTestClient.ConnectAsync(rabbit.Uri);
            await client.PublishAsync(queue, 20, i => (new BasicProperties { MessageId = $"h-{i}" }, Body(i)));
            var store = server.Services.GetRequiredService<DocumentStore>();
            await WaitUntilAsync(() => store.Get("h-19") is not null, "the document landed through the host");
            var document = store.Get("h-7");
            Assert.NotNull(document);
            Assert.Equal(queue, document.Collection);
            Assert.True(document.Body.Span.SequenceEqual(Body(7)));
            var source = server.Services.GetRequiredService<IngestionService>().Find("rabbitmq-0");
            Assert.NotNull(source);
            Assert.True(source.GetStatus().Connected);
        }

        await using var check = await AmqpTestClient.ConnectAsync(rabbit.Uri);
        Assert.Equal(0u, await check.ReadyAsync(queue));
        await check.DeleteAsync(queue);
    }

    private static byte[] Body(int i) =>
        Encoding.UTF8.GetBytes($$"""{"key":"body-{{i}}","seq":{{i}},"customer":"customer-{{i % 37}}","city":"Zürich"}""");

    private static (string Id, string Collection) ExpectedMany(int i, string queue)
    {
        var id = (i % 10) switch
        {
            1 => $"hdr-{i}",
            2 => $"body-{i}",
            _ => $"doc-{i}",
        };
        return (id, i % 7 == 3 ? "special" : queue);
    }

    private static (BasicProperties Properties, byte[] Body) ManyMessage(int i)
    {
        var properties = new BasicProperties();
        var headers = new Dictionary<string, object?>();
        switch (i % 10)
        {
            case 1:
                // The ingest-id header wins over the message-id.
                properties.MessageId = $"mid-{i}";
                headers["ingest-id"] = $"hdr-{i}";
                break;
            case 2:
                // No message-id: the id comes from the body's "key" property.
                break;
            default:
                properties.MessageId = $"doc-{i}";
                break;
        }

        if (i % 7 == 3)
        {
            headers["ingest-collection"] = "special";
        }

        properties.Headers = headers.Count > 0 ? headers : null;
        return (properties, Body(i));
    }

    private static (BasicProperties Properties, byte[] Body) PoisonOrGood(int i)
    {
        if (i % 10 != 5)
        {
            return (new BasicProperties { MessageId = $"good-{i}" }, Body(i));
        }

        var headers = new Dictionary<string, object?> { ["trace"] = $"t-{i}", ["attempt"] = i };
        var properties = new BasicProperties { MessageId = $"bad-{i}", Headers = headers };
        switch ((i / 10) % 4)
        {
            case 0:
                return (properties, Encoding.UTF8.GetBytes($"not json {i}"));
            case 1:
                properties.MessageId = null;
                return (properties, Encoding.UTF8.GetBytes($$"""{"seq":{{i}}}"""));
            case 2:
                headers["ingest-op"] = "upsert";
                return (properties, Body(i));
            default:
                return (properties, Encoding.UTF8.GetBytes($$"""{"seq":{{i}},"pad":"{{new string('x', 400)}}"}"""));
        }
    }

    private static async Task WaitUntilAsync(Func<bool> condition, string what)
    {
        var deadline = Stopwatch.StartNew();
        while (!condition())
        {
            if (deadline.Elapsed > Timeout)
            {
                throw new TimeoutException($"Waited {Timeout.TotalSeconds:0} s for: {what}");
            }

            await Task.Delay(50);
        }
    }
}
