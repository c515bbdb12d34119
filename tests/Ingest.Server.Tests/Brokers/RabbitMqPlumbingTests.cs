using System.Text;
using Ingest.Testing.Brokers;
using RabbitMQ.Client;
using RabbitMQ.Client.Events;

namespace Ingest.Server.Tests.Brokers;

/// <summary>Proves RabbitMQ.Client 7 and the broker work together: confirmed publishes, manual acks.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class RabbitMqPlumbingTests(BrokerFixture brokers)
{
    private const int MessageCount = 10_000;
    private const int ConfirmWindow = 500;

    [Fact]
    public async Task Confirmed_publishes_are_consumed_with_manual_acks_and_leave_the_queue_empty()
    {
        var rabbit = await brokers.GetRabbitMqAsync();
        var factory = new ConnectionFactory { Uri = rabbit.Uri };
        await using var connection = await factory.CreateConnectionAsync();
        var queue = $"plumbing-{Guid.NewGuid():N}";

        // Publish with confirms: with tracking on, each publish completes only when the broker
        // confirmed it (and throws on a nack), so awaiting a window of them bounds what is in flight.
        var confirms = new CreateChannelOptions(publisherConfirmationsEnabled: true, publisherConfirmationTrackingEnabled: true);
        await using (var publisher = await connection.CreateChannelAsync(confirms))
        {
            await publisher.QueueDeclareAsync(queue, durable: true, exclusive: false, autoDelete: false);
            var window = new List<Task>(ConfirmWindow);
            for (var i = 0; i < MessageCount; i++)
            {
                var properties = new BasicProperties { MessageId = i.ToString(System.Globalization.CultureInfo.InvariantCulture), DeliveryMode = DeliveryModes.Persistent };
                window.Add(publisher.BasicPublishAsync(string.Empty, queue, mandatory: true, properties, Body(i)).AsTask());
                if (window.Count == ConfirmWindow)
                {
                    await Task.WhenAll(window);
                    window.Clear();
                }
            }

            await Task.WhenAll(window);
        }

        // Consume with manual acks: one consumer on one queue receives in publish order.
        var received = new List<(string MessageId, string Body)>(MessageCount);
        var allReceived = new TaskCompletionSource(TaskCreationOptions.RunContinuationsAsynchronously);
        await using (var consumerChannel = await connection.CreateChannelAsync())
        {
            await consumerChannel.BasicQosAsync(prefetchSize: 0, prefetchCount: 1_000, global: false);
            var consumer = new AsyncEventingBasicConsumer(consumerChannel);
            consumer.ReceivedAsync += async (_, delivery) =>
            {
                received.Add((delivery.BasicProperties.MessageId ?? "", Encoding.UTF8.GetString(delivery.Body.Span)));
                await consumerChannel.BasicAckAsync(delivery.DeliveryTag, multiple: false);
                if (received.Count == MessageCount)
                {
                    allReceived.TrySetResult();
                }
            };
            var tag = await consumerChannel.BasicConsumeAsync(queue, autoAck: false, consumer);
            await allReceived.Task.WaitAsync(TimeSpan.FromSeconds(90));
            await consumerChannel.BasicCancelAsync(tag);
        }

        Assert.Equal(MessageCount, received.Count);
        for (var i = 0; i < MessageCount; i++)
        {
            Assert.Equal(i.ToString(System.Globalization.CultureInfo.InvariantCulture), received[i].MessageId);
            Assert.Equal(Encoding.UTF8.GetString(Body(i)), received[i].Body);
        }

        // Every delivery was acknowledged: nothing is ready or waiting for an ack in the queue.
        await using var check = await connection.CreateChannelAsync();
        var state = await check.QueueDeclarePassiveAsync(queue);
        Assert.Equal(0u, state.MessageCount);
        Assert.Equal(0u, state.ConsumerCount);
        await check.QueueDeleteAsync(queue);
    }

    private static byte[] Body(int i) => Encoding.UTF8.GetBytes($$"""{"seq":{{i}},"customer":"customer-{{i % 37}}","city":"Zürich"}""");
}
