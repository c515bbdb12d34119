using System.Diagnostics;
using System.Globalization;
using System.Net.Http.Headers;
using System.Text;
using Confluent.Kafka;

namespace Ingest.Benchmarks.Cluster;

/// <summary>
/// ETL failover: while documents are written to the surviving nodes, the node sending the ETL task's messages
/// (named by each message's CloudEvents source, which every node sets to its own name) is SIGKILLed; the time
/// from the kill to the first message another node sends is the failover time. The killed node is started
/// again before the next round.
/// </summary>
internal sealed class EtlFailoverRun(string kafka, string topic, IReadOnlyList<BenchNode> nodes, int rounds, TextWriter console)
{
    private static readonly TimeSpan RoundTimeout = TimeSpan.FromMinutes(2);
    private readonly object _gate = new();
    private string? _lastSender;
    private long _messages;

    public async Task<ClusterRow> RunAsync()
    {
        using var stop = new CancellationTokenSource();
        var consuming = Task.Factory.StartNew(() => Consume(stop.Token), TaskCreationOptions.LongRunning);
        var writing = Task.Run(() => WriteAsync(stop.Token));
        var times = new List<double>();
        try
        {
            for (var round = 0; round < rounds; round++)
            {
                var owner = await WaitForSenderAsync(exclude: null).ConfigureAwait(false);
                var node = nodes.First(n => n.Name == owner);
                var clock = Stopwatch.StartNew();
                lock (_gate)
                {
                    _lastSender = null; // from here on, only a message sent after the kill counts
                }

                node.Kill();
                var next = await WaitForSenderAsync(exclude: owner).ConfigureAwait(false);
                times.Add(clock.Elapsed.TotalMilliseconds);
                console.WriteLine(string.Create(CultureInfo.InvariantCulture, $"failover {round + 1}: {owner} killed, {next} sent after {clock.Elapsed.TotalSeconds:N1} s"));
                node.Start();
            }
        }
        finally
        {
            await stop.CancelAsync().ConfigureAwait(false);
            await writing.ConfigureAwait(false);
            await consuming.ConfigureAwait(false);
        }

        times.Sort();
        return new ClusterRow(
            ClusterCommand.EtlFailover, ClusterCommand.ClusterSystem, null, ClusterBench.Percentile(times, 0.5), ClusterBench.Percentile(times, 0.99), null,
            string.Create(CultureInfo.InvariantCulture, $"{times.Count} kills of the owner, kill to the new owner's first message; session timeout 10 s, {_messages} messages seen"));
    }

    private async Task<string> WaitForSenderAsync(string? exclude)
    {
        var deadline = DateTime.UtcNow + RoundTimeout;
        while (DateTime.UtcNow < deadline)
        {
            lock (_gate)
            {
                if (_lastSender is { } sender && sender != exclude)
                {
                    return sender;
                }
            }

            await Task.Delay(10).ConfigureAwait(false);
        }

        throw new TimeoutException($"no ETL message from a node other than {exclude ?? "(none)"} within {RoundTimeout}");
    }

    private void Consume(CancellationToken stop)
    {
        var config = new ConsumerConfig
        {
            BootstrapServers = kafka, GroupId = $"failover-watch-{Guid.NewGuid():N}", AutoOffsetReset = AutoOffsetReset.Latest, EnableAutoCommit = false,
            FetchWaitMaxMs = 10,
        };
        using var consumer = new ConsumerBuilder<byte[], byte[]>(config).Build();
        consumer.Subscribe(topic);
        while (!stop.IsCancellationRequested)
        {
            var result = consumer.Consume(TimeSpan.FromMilliseconds(100));
            if (result?.Message.Headers is not { } headers || !headers.TryGetLastBytes("ce_source", out var source))
            {
                continue;
            }

            // ce_source is "/ingest/<node>/<collection>".
            var parts = Encoding.UTF8.GetString(source).Split('/', StringSplitOptions.RemoveEmptyEntries);
            lock (_gate)
            {
                _lastSender = parts.Length >= 2 ? parts[1] : null;
                _messages++;
            }
        }

        consumer.Close();
    }

    /// <summary>A steady trickle of writes to whichever nodes answer, so the ETL task always has something to send.</summary>
    private async Task WriteAsync(CancellationToken stop)
    {
        var seq = 0;
        while (!stop.IsCancellationRequested)
        {
            var node = nodes[seq % nodes.Count];
            seq++;
            if (!node.IsRunning)
            {
                continue;
            }

            try
            {
                using var content = new StringContent(
                    string.Create(CultureInfo.InvariantCulture, $$"""{"seq":{{seq}}}"""), Encoding.UTF8, new MediaTypeHeaderValue("application/json"));
                using var response = await node.Client.PutAsync(
                    new Uri($"docs/failover/{(seq % 500).ToString(CultureInfo.InvariantCulture)}?collection=Failover", UriKind.Relative), content, stop).ConfigureAwait(false);
            }
            catch (HttpRequestException)
            {
                // the node was just killed
            }
            catch (OperationCanceledException)
            {
                return;
            }

            try
            {
                await Task.Delay(5, stop).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }
        }
    }
}
