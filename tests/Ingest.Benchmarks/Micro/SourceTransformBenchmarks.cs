using System.Text;
using BenchmarkDotNet.Attributes;
using Ingest.Benchmarks.Ingestion;
using Ingest.Contracts.Messages;
using Ingest.Server.Scripting;
using Ingest.Server.Sources;
using Ingest.Server.Sources.Kafka;
using Ingest.Server.Sources.Mapping;
using Jint;
using Jint.Native;
using Jint.Native.Function;
using Jint.Native.Json;

namespace Ingest.Benchmarks.Micro;

/// <summary>
/// A source transform's cost per message against Jint's own for the same script on the same
/// documents (the <c>kafka-ingest-transform</c> workload's reshape of ~1 KiB customer profiles),
/// so what remains of the transform path can be split into the interpreter's share and ours:
/// <list type="bullet">
/// <item><see cref="JintCallOnly"/>: only the call, on arguments built beforehand (the script's run, no JSON at all).</item>
/// <item><see cref="JintParseCallStringify"/>: what Jint gives for the whole job: UTF-8 to text, its <c>JSON.parse</c>, the call, its <c>JSON.stringify</c> of the body, back to UTF-8.</item>
/// <item><see cref="SourceScriptTransform"/>: our script host's call (lazy reading of the body, the message object, reading and serializing the operations).</item>
/// <item><see cref="WriterTransform"/>: the batch writer's whole step for one message, as the source runs it (the body checked on the consume thread).</item>
/// <item><see cref="WriterTransformUnchecked"/>: the same step on a body nobody checked (the writer checks and reads it with the JSON reader, as it did for every message before issue 30).</item>
/// <item><see cref="ConsumeThreadDefer"/>: the consume thread's half (capturing the message and checking its body).</item>
/// </list>
/// </summary>
[MemoryDiagnoser]
public class SourceTransformBenchmarks
{
    private const int Messages = 1_024;
    private const string Topic = "customers";

    private readonly MappingRules _rules = new() { Collection = ProfileDocuments.Collection };
    private byte[][] _bodies = [];
    private string[] _keys = [];
    private string[] _texts = [];
    private JsValue[] _parsedBodies = [];
    private JsValue[] _parsedMessages = [];
    private IngestItem[] _deferred = [];
    private IngestItem[] _unchecked = [];
    private byte[][] _kafkaKeys = [];
    private readonly KafkaHeadersView _headers = new();
    private SourceScript? _script;
    private Engine? _engine;
    private Function? _function;
    private JsonParser? _parser;
    private JsonSerializer? _serializer;
    private int _next;

    [GlobalSetup]
    public void Setup()
    {
        var documents = new ProfileDocuments(IngestionCommand.DefaultSeed);
        _bodies = new byte[Messages][];
        _keys = new string[Messages];
        _texts = new string[Messages];
        for (var i = 0; i < Messages; i++)
        {
            (_keys[i], _bodies[i]) = documents.Next();
            _texts[i] = Encoding.UTF8.GetString(_bodies[i]);
        }

        // The source's own defaults.
        var options = new KafkaSourceOptions();
        var limits = new ScriptLimits(TimeSpan.FromMilliseconds(options.ScriptTimeoutMs), options.ScriptMemoryBytes);
        if (!SourceScript.TryCompile(KafkaServiceSource.ReshapeScript, limits, out _script, out var error))
        {
            throw new InvalidOperationException(error);
        }

        // Jint alone, with the limits the script host sets.
        _engine = new Engine(o => o.Strict().TimeoutInterval(limits.Timeout).LimitMemory(limits.MemoryBytes).LimitRecursion(256));
        _engine.Execute(KafkaServiceSource.ReshapeScript);
        _function = (Function)_engine.GetValue(ScriptHost.FunctionName);
        _parser = new JsonParser(_engine);
        _serializer = new JsonSerializer(_engine);
        _parsedBodies = new JsValue[Messages];
        _parsedMessages = new JsValue[Messages];
        _deferred = new IngestItem[Messages];
        _unchecked = new IngestItem[Messages];
        _kafkaKeys = new byte[Messages][];
        for (var i = 0; i < Messages; i++)
        {
            _parsedBodies[i] = _parser.Parse(_texts[i]);
            _parsedMessages[i] = Message(_engine, _keys[i], i);
            _kafkaKeys[i] = Encoding.UTF8.GetBytes(_keys[i]);
            _deferred[i] = IngestItemMapper.Defer(
                IncomingMessage.FromKafka(Topic, _kafkaKeys[i], true, _bodies[i], false, null), _headers, _bodies[i], new ItemPosition("bench", 0, i, 0));
            _unchecked[i] = _deferred[i] with { BodyValidated = false };
        }
    }

    [Benchmark(Baseline = true)]
    public JsValue JintCallOnly()
    {
        var i = _next++ & (Messages - 1);
        _engine!.Constraints.Reset();
        return _engine.Call(_function!, _parsedBodies[i], _parsedMessages[i]);
    }

    [Benchmark]
    public int JintParseCallStringify()
    {
        var i = _next++ & (Messages - 1);
        var engine = _engine!;
        engine.Constraints.Reset();
        var body = _parser!.Parse(Encoding.UTF8.GetString(_bodies[i]));
        var result = engine.Call(_function!, body, Message(engine, _keys[i], i)).AsObject();
        var json = _serializer!.Serialize(result.Get("body"), JsValue.Undefined, JsValue.Undefined);
        return Encoding.UTF8.GetByteCount(json.ToString()) + result.Get("id").ToString().Length;
    }

    [Benchmark]
    public int SourceScriptTransform()
    {
        var i = _next++ & (Messages - 1);
        var input = new SourceScriptInput(_bodies[i], false, _keys[i], null, "bench", true, Topic, 0, i, null, ProfileDocuments.Collection);
        return _script!.Transform(input).Count;
    }

    [Benchmark]
    public int WriterTransform()
    {
        var i = _next++ & (Messages - 1);
        var item = IngestItemMapper.TransformAwaiting(_deferred[i], _script!, "bench", true, _rules);
        return item.Kind == IngestItemKind.Transformed ? item.Operations!.Count : throw new InvalidOperationException(item.DeadLetterReason);
    }

    [Benchmark]
    public int WriterTransformUnchecked()
    {
        var i = _next++ & (Messages - 1);
        var item = IngestItemMapper.TransformAwaiting(_unchecked[i], _script!, "bench", true, _rules);
        return item.Kind == IngestItemKind.Transformed ? item.Operations!.Count : throw new InvalidOperationException(item.DeadLetterReason);
    }

    [Benchmark]
    public bool ConsumeThreadDefer()
    {
        var i = _next++ & (Messages - 1);
        return IngestItemMapper.Defer(
            IncomingMessage.FromKafka(Topic, _kafkaKeys[i], true, _bodies[i], false, null), _headers, _bodies[i], new ItemPosition("bench", 0, i, 0)).BodyValidated;
    }

    // The message argument as the script host builds it for a Kafka record without headers.
    private static JsObject Message(Engine engine, string key, long offset)
    {
        var message = new JsObject(engine);
        message.FastSetDataProperty("source", "bench");
        message.FastSetDataProperty("topic", Topic);
        message.FastSetDataProperty("partition", 0);
        message.FastSetDataProperty("offset", offset);
        message.FastSetDataProperty("key", key);
        message.FastSetDataProperty("messageId", JsValue.Null);
        message.FastSetDataProperty("headers", new JsObject(engine));
        return message;
    }
}
