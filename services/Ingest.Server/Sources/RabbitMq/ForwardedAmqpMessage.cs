using System.Text;
using Ingest.Server.Cluster;
using RabbitMQ.Client.Events;

namespace Ingest.Server.Sources.RabbitMq;

/// <summary>
/// A RabbitMQ message as its source's owner forwards it into the cluster topic (kind <c>source</c>): the body as it
/// arrived, header <c>ingest-source</c> = the source's name, <c>ingest-source-queue</c>, <c>ingest-source-message-id</c> (when the
/// message has one) and <c>ingest-source-routing-key</c> (<see cref="ClusterHeaders"/>), then the message's own headers (AMQP values as bytes, as dead letters
/// keep them; any of these reserved names among them is left out). Every node maps it with that source's mapping, as
/// if it had consumed it. The key is the source's name, so a source's messages stay in queue order in one partition.
/// </summary>
internal static class ForwardedAmqpMessage
{
    public const string Kind = "source";
    public const string SourceHeader = ClusterHeaders.Source;
    public const string QueueHeader = ClusterHeaders.Queue;
    public const string MessageIdHeader = ClusterHeaders.MessageId;
    public const string RoutingKeyHeader = "ingest-source-routing-key";

    public static ClusterRecord Create(string source, string queue, BasicDeliverEventArgs delivery)
    {
        ArgumentNullException.ThrowIfNull(delivery);
        var properties = delivery.BasicProperties;
        var own = AmqpHeaderValues.ToEnvelopeHeaders(properties.Headers);
        var headers = new List<KeyValuePair<string, byte[]>>(own.Count + 4)
        {
            new(SourceHeader, Encoding.UTF8.GetBytes(source)),
            new(QueueHeader, Encoding.UTF8.GetBytes(queue)),
            new(RoutingKeyHeader, Encoding.UTF8.GetBytes(delivery.RoutingKey ?? string.Empty)),
        };
        if (properties.MessageId is { } messageId)
        {
            headers.Add(new(MessageIdHeader, Encoding.UTF8.GetBytes(messageId)));
        }

        foreach (var header in own)
        {
            if (!IsReserved(header.Key))
            {
                headers.Add(header);
            }
        }

        // The client's body memory is only valid during its delivery handler: the record keeps a copy.
        return new ClusterRecord(Kind, source, delivery.Body.ToArray(), headers);
    }

    /// <summary>The forwarded message's source, queue, message id and own headers (for the applier).</summary>
    public static (string? Source, string? Queue, string? MessageId, List<KeyValuePair<string, byte[]>> Headers) Read(ClusterRecord record)
    {
        ArgumentNullException.ThrowIfNull(record);
        string? source = null, queue = null, messageId = null;
        var headers = new List<KeyValuePair<string, byte[]>>(record.Headers.Count);
        foreach (var header in record.Headers)
        {
            switch (header.Key)
            {
                case SourceHeader: source = Encoding.UTF8.GetString(header.Value); break;
                case QueueHeader: queue = Encoding.UTF8.GetString(header.Value); break;
                case MessageIdHeader: messageId = Encoding.UTF8.GetString(header.Value); break;
                case RoutingKeyHeader or ClusterHeaders.Kind: break;
                default: headers.Add(header); break;
            }
        }

        return (source, queue, messageId, headers);
    }

    private static bool IsReserved(string name) =>
        name is SourceHeader or QueueHeader or MessageIdHeader or RoutingKeyHeader or ClusterHeaders.Kind;
}
