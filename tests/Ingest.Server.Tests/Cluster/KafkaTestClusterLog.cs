using System.Text;
using Confluent.Kafka;
using Ingest.Server.Cluster;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

namespace Ingest.Server.Tests.Cluster;

/// <summary>
/// A small real cluster log for the owner tests until the server's own lands: appends go to a real Kafka topic
/// (idempotent, acks=all), and every node reads the whole topic from the start (assigned, no group) and hands each
/// record to the registered handler of its kind. Records of kinds without a handler here (<c>source</c>, <c>doc</c>) are
/// kept for the test to count.
/// </summary>
internal sealed class KafkaTestClusterLog : IClusterLog, IHostedService, IDisposable
{
    private readonly string _bootstrap;
    private readonly string _topic;
    private readonly IServiceProvider _services;
    private readonly IProducer<string, byte[]> _producer;
    private readonly CancellationTokenSource _stop = new();
    private readonly Lock _lock = new();
    private readonly Dictionary<int, long> _applied = [];
    private readonly List<ClusterRecord> _unhandled = [];
    private Thread? _thread;

    public KafkaTestClusterLog(string bootstrap, string topic, IServiceProvider services)
    {
        _bootstrap = bootstrap;
        _topic = topic;
        _services = services;
        _producer = new ProducerBuilder<string, byte[]>(new ProducerConfig
        {
            BootstrapServers = bootstrap,
            EnableIdempotence = true,
            Acks = Acks.All,
            LingerMs = 2,
        }).SetLogHandler(static (_, _) => { }).Build();
    }

    /// <summary>Adds the log to a server's services: it is the server's <see cref="IClusterLog"/> and runs with the host.</summary>
    public static void Register(IServiceCollection services, string bootstrap, string topic)
    {
        services.AddSingleton(provider => new KafkaTestClusterLog(bootstrap, topic, provider));
        services.AddSingleton<IClusterLog>(static provider => provider.GetRequiredService<KafkaTestClusterLog>());
        services.AddHostedService(static provider => provider.GetRequiredService<KafkaTestClusterLog>());
    }

    /// <summary>Records read that no handler here applies, in log order per partition.</summary>
    public IReadOnlyList<ClusterRecord> Unhandled
    {
        get
        {
            lock (_lock)
            {
                return [.. _unhandled];
            }
        }
    }

    public async Task<ClusterPosition> AppendAsync(ClusterRecord record, CancellationToken cancellationToken)
    {
        var headers = new Headers { { "ingest-kind", Encoding.UTF8.GetBytes(record.Kind) } };
        foreach (var (name, value) in record.Headers)
        {
            headers.Add(name, value);
        }

        var result = await _producer.ProduceAsync(_topic, new Message<string, byte[]> { Key = record.Key, Value = record.Body.ToArray(), Headers = headers }, cancellationToken);
        return new ClusterPosition(result.Partition.Value, result.Offset.Value);
    }

    public async Task WaitAppliedAsync(ClusterPosition position, CancellationToken cancellationToken)
    {
        while (true)
        {
            lock (_lock)
            {
                if (_applied.TryGetValue(position.Partition, out var applied) && applied >= position.Offset)
                {
                    return;
                }
            }

            await Task.Delay(10, cancellationToken);
        }
    }

    public Task StartAsync(CancellationToken cancellationToken)
    {
        var handlers = _services.GetServices<IClusterRecordHandler>().ToDictionary(static h => h.Kind);
        _thread = new Thread(() => Apply(handlers)) { IsBackground = true, Name = "test cluster log" };
        _thread.Start();
        return Task.CompletedTask;
    }

    public Task StopAsync(CancellationToken cancellationToken)
    {
        _stop.Cancel();
        _thread?.Join();
        return Task.CompletedTask;
    }

    private void Apply(Dictionary<string, IClusterRecordHandler> handlers)
    {
        using var consumer = new ConsumerBuilder<string, byte[]>(new ConsumerConfig
        {
            BootstrapServers = _bootstrap,
            GroupId = $"test-cluster-log-{Guid.NewGuid():N}",
            EnableAutoCommit = false,
        }).SetLogHandler(static (_, _) => { }).Build();
        using (var admin = new DependentAdminClientBuilder(consumer.Handle).Build())
        {
            var partitions = admin.GetMetadata(_topic, TimeSpan.FromSeconds(30)).Topics[0].Partitions;
            consumer.Assign(partitions.Select(p => new TopicPartitionOffset(_topic, p.PartitionId, Offset.Beginning)));
        }

        while (!_stop.IsCancellationRequested)
        {
            ConsumeResult<string, byte[]>? result;
            try
            {
                result = consumer.Consume(_stop.Token);
            }
            catch (OperationCanceledException)
            {
                break;
            }

            var headers = result.Message.Headers.Where(static h => h.Key != "ingest-kind").Select(static h => new KeyValuePair<string, byte[]>(h.Key, h.GetValueBytes())).ToList();
            var kind = Encoding.UTF8.GetString(result.Message.Headers.GetLastBytes("ingest-kind"));
            var record = new ClusterRecord(kind, result.Message.Key, result.Message.Value, headers);
            if (handlers.TryGetValue(kind, out var handler))
            {
                handler.ApplyAsync(record, new ClusterPosition(result.Partition.Value, result.Offset.Value), CancellationToken.None).GetAwaiter().GetResult();
            }
            else
            {
                lock (_lock)
                {
                    _unhandled.Add(record);
                }
            }

            lock (_lock)
            {
                _applied[result.Partition.Value] = result.Offset.Value;
            }
        }
    }

    public void Dispose()
    {
        _producer.Dispose();
        _stop.Dispose();
    }
}
