using BenchmarkDotNet.Attributes;
using Ingest.Benchmarks.Documents;
using Ingest.Benchmarks.Etl;
using Ingest.Documents;
using Ingest.Server.Brokers;
using Ingest.Server.Etl;

namespace Ingest.Benchmarks.Micro;

/// <summary>
/// What the ETL task spends per stored order on its own side of the Kafka client: the <c>etl</c>
/// benchmark's transform (parse into Jint values, call, serialize the result) and the CloudEvents
/// record (key, headers) as handed to librdkafka. Allocations per operation are exact on any
/// machine, where the end-to-end rates on a shared one are not.
/// </summary>
[MemoryDiagnoser]
public class EtlMessageBenchmarks
{
    private const int Orders = 1_024;

    private Document[] _documents = [];
    private EtlMessage[] _messages = [];
    private EtlScript? _script;
    private EtlKafkaHeaders? _headers;
    private readonly KafkaRecordBuilder _record = new();
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        var data = OrderDataset.Generate(Orders, 0, EtlCommand.DefaultSeed);
        var lastModified = new DateTime(2026, 11, 26, 8, 0, 0, DateTimeKind.Utc);
        _documents = new Document[Orders];
        _messages = new EtlMessage[Orders];
        for (var i = 0; i < Orders; i++)
        {
            _documents[i] = new Document(data.Ids[i], OrderDataset.Collection, i + 1, lastModified, DocumentFlags.None, data.Bodies[i]);
            _messages[i] = new EtlMessage(data.Ids[i], i + 1, OrderDataset.Collection, lastModified, false, data.Bodies[i], -1, data.Ids[i], null, []);
        }

        var definition = new EtlTaskDefinition();
        if (!EtlScript.TryCompile(EtlIngestRun.TransformScript, definition.Limits, out _script, out var error))
        {
            throw new InvalidOperationException(error);
        }

        _headers = new EtlKafkaHeaders("/ingest/bench");
    }

    [Benchmark]
    public int Transform() => _script!.Transform(_documents[_next++ & (Orders - 1)]).Count;

    [Benchmark]
    public int KafkaRecord()
    {
        var message = _messages[_next++ & (Orders - 1)];
        _record.Start(0, 0, EtlKafkaHeaders.ScratchBytes(message, 0));
        _headers!.Write(_record, message);
        return _record.FieldCount;
    }

    [GlobalCleanup]
    public void Cleanup()
    {
        _headers?.Dispose();
        _record.Dispose();
    }
}
