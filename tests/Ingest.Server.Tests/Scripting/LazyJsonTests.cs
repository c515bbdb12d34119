using System.Text;
using Ingest.Server.Scripting;
using Jint;
using Jint.Native;

namespace Ingest.Server.Tests.Scripting;

/// <summary>
/// Documents read lazily (<see cref="LazyJsonObject"/>) behave as <c>JSON.parse</c>'s objects under
/// whatever a script does to them, and the UTF-8 serializer writes exactly what <c>JSON.stringify</c> writes.
/// </summary>
public sealed class LazyJsonTests
{
    // JSON.parse's samples that are objects, and more that exercise what a script can do to one.
    private static readonly string[] Objects =
    [
        .. Etl.Utf8JsonToJsValueTests.Samples.Where(static sample => sample.StartsWith('{')),
        """{"b":1,"2":"two","a":3,"1":"one","-1":"minus","01":"zero one","4294967295":"big","nested":{"z":1,"0":0}}""",
        """{"esc\u0061ped":1,"name\"quote":{"in\\ner":"v"},"é":2,"e":3}""",
        "{\n  \"pretty\" : [ 1 , 2 , { \"a\" : \"b\" } ] ,\n\t\"x\" : { }\r\n}",
        """{"a":{"b":{"c":{"d":{"e":[[[{"f":"deep"}]]]}}}},"arr":[1,"s",null,true,false,{"o":1},[2]]}""",
        "{}",
        ManyNames(300, nested: false),
        ManyNames(300, nested: true),
    ];

    // Each is applied to a lazily read document and to JSON.parse's; both results must serialize alike.
    private static readonly string[] Scenarios =
    [
        "d => d",
        "d => ({ wrapped: d, copy: { ...d }, twice: [d, d], keys: Object.keys(d), values: Object.values(d), entries: Object.entries(d) })",
        "d => { const seen = []; for (const k in d) seen.push(k, typeof d[k]); return { seen, names: Object.getOwnPropertyNames(d), json: JSON.stringify(d) }; }",
        "d => { d.added = 'new'; d[7] = 'seven'; return d; }",
        "d => { const k = Object.keys(d); if (k.length) { delete d[k[0]]; d[k[k.length - 1]] = { replaced: true }; } return d; }",
        "d => { for (const k of Object.keys(d)) { const v = d[k]; if (v && typeof v === 'object' && !Array.isArray(v)) { v.touched = k; delete v[Object.keys(v)[0]]; } else if (Array.isArray(v)) { v.push('pushed'); } } return d; }",
        "d => { Object.defineProperty(d, 'hidden', { value: 1, enumerable: false }); Object.defineProperty(d, 'shown', { value: 2, enumerable: true }); return d; }",
        "d => { for (const k of Object.keys(d)) { d[k] = undefined; break; } d.f = function () {}; d.s = Symbol('s'); return d; }",
        "d => JSON.parse(JSON.stringify(d))",
        "d => { const out = {}; for (const [k, v] of Object.entries(d)) out[k.toUpperCase()] = typeof v === 'string' ? v + '!' : v; return out; }",
        "d => ({ has: 'dup' in d, own: Object.prototype.hasOwnProperty.call(d, 'nested'), proto: Object.getPrototypeOf(d) === Object.prototype, frozen: Object.isFrozen(Object.freeze(d)), d })",
        "d => { Object.getOwnPropertyNames(d).forEach(k => { d[k] = d[k]; }); return d; }",
        "d => { d.toJSON = function (key) { return { key: key, n: Object.keys(this).length }; }; return { inner: d }; }",

        // Reads by name first (answered from the bytes), then what makes the object an ordinary one.
        "d => ({ picked: { dup: d.dup, nested: d.nested, a: d.a, é: d['é'], p7: d.p7, missing: d.missing, proto: d.__proto__, ts: typeof d.toString, has: 'dup' in d, own: Object.prototype.hasOwnProperty.call(d, 'x') }, d })",
        "d => { const n = d.nested, a = d.a, t = d.escapes; d.added = 1; return { same: d.nested === n && d.a === a && d.escapes === t, keys: Object.keys(d), d }; }",
        "d => { const n = d.nested ?? d.a ?? d.big; if (n && typeof n === 'object') { n.changed = true; } return { again: d.nested ?? d.a ?? d.big, d }; }",
        "d => { const v = d.dup; d.dup = 'written'; return { v, now: d.dup, d }; }",
        "d => { const x = d.pretty; delete d.pretty; return { x, gone: d.pretty, d }; }",
    ];

    public static TheoryData<string, string> Cases()
    {
        var data = new TheoryData<string, string>();
        foreach (var document in Objects)
        {
            foreach (var scenario in Scenarios)
            {
                data.Add(document, scenario);
            }
        }

        return data;
    }

    [Theory]
    [MemberData(nameof(Cases))]
    public void A_lazily_read_document_behaves_as_JSON_parse_gives_it_and_serializes_alike(string json, string scenario)
    {
        // Read with the check (a message body) and without it (a stored document, read on first touch).
        AssertBehavesAsJsonParse(json, scenario, stored: false);
        AssertBehavesAsJsonParse(json, scenario, stored: true);
    }

    private static void AssertBehavesAsJsonParse(string json, string scenario, bool stored)
    {
        var engine = new Engine(options => options.Strict());
        var reader = new Utf8JsonToJsValue(engine);
        var writer = new Utf8JsonFromJsValue(engine, 64L * 1024 * 1024);
        var run = engine.Evaluate($"({scenario})");
        var bytes = Encoding.UTF8.GetBytes(json);

        var fromLazy = engine.Invoke(run, stored ? reader.ParseStored(bytes) : reader.Parse(bytes));
        var fromParse = engine.Invoke(run, engine.Evaluate("JSON.parse").AsObject().Call(JsValue.Undefined, [json]));

        engine.SetValue("a", fromLazy);
        engine.SetValue("b", fromParse);
        var expected = engine.Evaluate("JSON.stringify(b)").AsString();
        Assert.Equal(expected, engine.Evaluate("JSON.stringify(a)").AsString());
        Assert.Equal(expected, Encoding.UTF8.GetString(writer.Serialize(fromLazy)));
        Assert.Equal(expected, Encoding.UTF8.GetString(writer.Serialize(fromParse)));
        Assert.True(engine.Evaluate(SameShape).AsBoolean());
    }

    [Fact]
    public void Only_what_the_script_reads_is_made_from_the_bytes_and_the_rest_is_copied_as_it_was()
    {
        var engine = new Engine(options => options.Strict());
        var reader = new Utf8JsonToJsValue(engine);
        var writer = new Utf8JsonFromJsValue(engine, 64L * 1024 * 1024);
        const string Json = """{"read":{"x":1},"unread":{"y":[1,2,{"z":"s"}]},"text":"t"}""";
        var document = Assert.IsType<LazyJsonObject>(reader.Parse(Encoding.UTF8.GetBytes(Json)));
        var read = Assert.IsType<LazyJsonProperty>(document.GetOwnProperty("read"));
        var unread = Assert.IsType<LazyJsonProperty>(document.GetOwnProperty("unread"));
        Assert.False(read.UnreadJson.IsEmpty);

        Assert.Equal(1, engine.Invoke(engine.Evaluate("(d => d.read.x)"), document).AsNumber());

        Assert.True(read.UnreadJson.IsEmpty);
        // Reading a number of a nested object by name leaves it as its bytes say: it is still copied.
        Assert.True(Assert.IsType<LazyJsonObject>(read.Value).IsUntouched);
        Assert.Equal("""{"y":[1,2,{"z":"s"}]}""", Encoding.UTF8.GetString(unread.UnreadJson.Span));
        Assert.Equal(Json, Encoding.UTF8.GetString(writer.Serialize(document)));
        Assert.False(unread.UnreadJson.IsEmpty);

        // Reading an array makes its objects, but leaves them unread until touched.
        Assert.Equal(3, engine.Invoke(engine.Evaluate("(d => d.unread.y.length)"), document).AsNumber());
        var element = Assert.IsType<LazyJsonObject>(engine.Invoke(engine.Evaluate("(d => d.unread.y[2])"), document));
        Assert.True(element.IsUntouched);
        Assert.Equal(Json, Encoding.UTF8.GetString(writer.Serialize(document)));
    }

    [Fact]
    public void A_stored_document_the_script_does_not_touch_is_copied_as_JSON_stringify_writes_it()
    {
        var engine = new Engine(options => options.Strict());
        var reader = new Utf8JsonToJsValue(engine);
        var writer = new Utf8JsonFromJsValue(engine, 64L * 1024 * 1024);
        var document = Assert.IsType<LazyJsonObject>(reader.ParseStored(Encoding.UTF8.GetBytes(" { \"a\" : [ 1.0 , \"\\u00e9\" ] } ")));

        Assert.Equal("""{"body":{"a":[1,"é"]}}""", Encoding.UTF8.GetString(writer.Serialize(engine.Invoke(engine.Evaluate("(d => ({ body: d }))"), document))));

        Assert.True(document.IsUntouched);
        Assert.Equal(1, engine.Invoke(engine.Evaluate("(d => d.a[0])"), document).AsNumber());
        Assert.False(document.IsUntouched);
    }

    [Fact]
    public void Values_the_fast_path_does_not_take_still_serialize_as_JSON_stringify_does()
    {
        var engine = new Engine(options => options.Strict());
        var writer = new Utf8JsonFromJsValue(engine, 64L * 1024 * 1024);
        string[] values =
        [
            "'all escapes: \" \\\\ \\b \\f \\n \\r \\t \\u0000 \\u001f \\u007f \\u2028 \\ud800 x \\udc00 \\ud83d\\ude00 é'",
            "[NaN, Infinity, -Infinity, -0, 0.1 + 0.2, 2 ** 53, -(2 ** 60), 1e21, 1e-7, 123.456, 5e-324, 1.7976931348623157e308]",
            "[undefined, function () {}, Symbol('s'), null, , 'hole before']",
            "({ u: undefined, f() {}, s: Symbol('s'), n: null, d: new Date(0), nested: { arr: [new Date(1)] } })",
            "({ get g() { return 'got'; }, plain: 1 })",
            "new (class Point { constructor() { this.x = 1; } })()",
            "({ boxed: new String('s'), num: new Number(1), map: new Map([[1, 2]]) })",
            "Object.create(null)",
            "(() => { const o = Object.create({ inherited: 1 }); o.own = 2; return o; })()",
            "(() => { const a = [1, 2]; a.extra = 'ignored'; return a; })()",
            "(() => { const a = [1, 2]; a.toJSON = () => 'array toJSON'; return a; })()",
            "new Proxy({ a: 1 }, {})",
            "undefined",
            "'top-level string'",
        ];

        foreach (var source in values)
        {
            var value = engine.Evaluate(source);
            engine.SetValue("v", value);
            var stringified = engine.Evaluate("JSON.stringify(v)");
            var expected = stringified.IsUndefined() ? "null" : stringified.AsString();
            Assert.Equal(expected, Encoding.UTF8.GetString(writer.Serialize(value)));
        }

        // A toJSON on a prototype every object shares is honoured too.
        engine.Execute("Object.prototype.toJSON = function () { return 'everyone'; };");
        Assert.Equal("\"everyone\"", Encoding.UTF8.GetString(writer.Serialize(engine.Evaluate("({ a: 1 })"))));
    }

    [Fact]
    public void A_cycle_is_refused_as_JSON_stringify_refuses_it()
    {
        var engine = new Engine();
        var writer = new Utf8JsonFromJsValue(engine, 64L * 1024 * 1024);
        var cycle = engine.Evaluate("(() => { const o = { a: [] }; o.a.push(o); return o; })()");

        Assert.ThrowsAny<Exception>(() => writer.Serialize(cycle));
    }

    [Fact]
    public void A_value_whose_JSON_exceeds_the_memory_limit_is_refused()
    {
        var engine = new Engine();
        var writer = new Utf8JsonFromJsValue(engine, 1024 * 1024);
        var doubled = engine.Evaluate("(() => { let a = ['x'.repeat(1000)]; for (let i = 0; i < 20; i++) a = [a, a]; return a; })()");

        var error = Assert.Throws<ScriptException>(() => writer.Serialize(doubled));

        Assert.Contains("longer than the script's memory limit", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void The_document_keeps_JSON_parse_semantics_after_the_call_that_read_it()
    {
        var engine = new Engine(options => options.Strict());
        var reader = new Utf8JsonToJsValue(engine);
        engine.Execute("var kept; function keep(d) { if (kept === undefined) kept = d; return d.b.c.length; }");

        engine.Invoke("keep", reader.Parse(Encoding.UTF8.GetBytes("""{"a":1,"b":{"c":[1,{"d":"e"}]}}""")));
        engine.Invoke("keep", reader.Parse(Encoding.UTF8.GetBytes("""{"a":2,"b":{"c":[3]}}""")));

        // The first document, read partly in its call, is read on after the second one's call.
        Assert.Equal("""{"a":1,"b":{"c":[1,{"d":"e"}]}}""", engine.Evaluate("JSON.stringify(kept)").AsString());
        Assert.Equal("e", engine.Evaluate("kept.b.c[1].d").AsString());
    }

    // More names than the copy compares, with a repeat at the end (JSON.parse keeps the last value, at the first place).
    private static string ManyNames(int count, bool nested)
    {
        var names = "{" + string.Join(",", Enumerable.Range(0, count).Select(static i => $"\"p{i}\":{i}")) + ",\"p7\":\"repeat\"}";
        return nested ? "{\"before\":[1],\"big\":" + names + ",\"after\":{\"p7\":7}}" : names;
    }

    // Same own keys in the same order, same prototypes, same values, at every level.
    private const string SameShape = """
        (function same(x, y) {
          if (typeof x !== typeof y || (x === null) !== (y === null)) return false;
          if (typeof x === 'function' || typeof x === 'symbol') return true;
          if (typeof x !== 'object' || x === null) return Object.is(x, y);
          if (Array.isArray(x) !== Array.isArray(y) || Object.getPrototypeOf(x) !== Object.getPrototypeOf(y)) return false;
          const kx = Reflect.ownKeys(x), ky = Reflect.ownKeys(y);
          return kx.length === ky.length && kx.every((k, i) => k === ky[i] && same(x[k], y[k]));
        })(a, b)
        """;
}
