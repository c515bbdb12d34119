using System.Text;
using Ingest.Server.Scripting;
using Jint;
using Jint.Native;

namespace Ingest.Server.Tests.Etl;

/// <summary>The UTF-8 document reader gives transforms exactly what the engine's own JSON.parse gives.</summary>
public sealed class Utf8JsonToJsValueTests
{
    internal static readonly string[] Samples =
    [
        """{"N":1,"Region":"eu","Lines":[{"Product":"tea","Qty":2,"Price":3.5},{"Product":"cake","Qty":1,"Price":-0.25}],"Ship":{"City":"Zürich","Zip":null},"Paid":true,"Gift":false}""",
        """{"escapes":"quote \" backslash \\ tab \t newline \n unicode \u00e9 \ud83d\ude00 slash \/ control \u0001 separator \u2028 lone \ud800 end","emoji":"😀","empty":"","nested":[[],{},[[1]]]}""",
        """{"big":1e400,"small":-1e-400,"int":9007199254740993,"exp":1.5E3,"neg":-0,"zero":0,"frac":0.1,"huge":1e21,"tiny":1e-7,"long":123456789012345678,"digits15":123456789012345,"negint":-42,"inner":{"n":[1.50,-0,2e2,1E-2]}}""",
        """{"dup":1,"other":2,"dup":3,"nested":{"a":1,"b":2,"a":{"deep":[{"x":1,"x":2}]}}}""",
        """{"__proto__":{"polluted":true},"constructor":"c","toString":"t","toJSON":"not a function","hasOwnProperty":1}""",
        """[1,"two",null,true,{"three":3}]""",
        "\"just a string\"",
        "  42  ",
        "null",
    ];

    public static TheoryData<string> Documents => new(Samples);

    [Theory]
    [MemberData(nameof(Documents))]
    public void A_document_reads_as_JSON_parse_reads_it(string json)
    {
        var engine = new Engine();
        AssertReadsAsJsonParse(engine, new Utf8JsonToJsValue(engine), json);
    }

    [Fact]
    public void One_reader_reads_document_after_document_as_JSON_parse_does_also_after_a_malformed_one()
    {
        var engine = new Engine();
        var reader = new Utf8JsonToJsValue(engine);
        for (var pass = 0; pass < 3; pass++)
        {
            foreach (var json in Samples)
            {
                AssertReadsAsJsonParse(engine, reader, json);
            }

            // Half-read nested arrays must not leak into the next document's arrays.
            Assert.ThrowsAny<System.Text.Json.JsonException>(() => reader.Parse("""{"a":[[1,2,[3"""u8.ToArray()));
            AssertReadsAsJsonParse(engine, reader, """{"a":[[4],[5,[6]]]}""");
        }
    }

    [Fact]
    public void Names_are_told_apart_by_their_bytes_whether_escaped_long_or_beyond_the_remembered_ones()
    {
        var engine = new Engine();
        var reader = new Utf8JsonToJsValue(engine);
        var longName = new string('n', 100);
        AssertReadsAsJsonParse(engine, reader, $$"""{"A":1,"Ab":2,"Ab":3,"é":4,"e":5,"{{longName}}":6,"{{longName}}x":7}""");

        // More distinct names than the table has slots, read twice: every one keeps its own value.
        var many = "{" + string.Join(",", Enumerable.Range(0, 2_000).Select(static i => $"\"p{i}\":{i}")) + "}";
        AssertReadsAsJsonParse(engine, reader, many);
        AssertReadsAsJsonParse(engine, reader, many);
    }

    private static void AssertReadsAsJsonParse(Engine engine, Utf8JsonToJsValue reader, string json)
    {
        engine.SetValue("fromUtf8", reader.Parse(Encoding.UTF8.GetBytes(json)));
        engine.SetValue("text", json);

        // Same serialization, same own keys in the same order, same prototypes, at every level.
        const string Compare = """
            (function same(a, b) {
              if (typeof a !== typeof b || (a === null) !== (b === null)) return false;
              if (typeof a !== 'object' || a === null) return Object.is(a, b);
              if (Array.isArray(a) !== Array.isArray(b) || Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
              const ka = Reflect.ownKeys(a), kb = Reflect.ownKeys(b);
              return ka.length === kb.length && ka.every((k, i) => k === kb[i] && same(a[k], b[k]));
            })(fromUtf8, JSON.parse(text)) && JSON.stringify(fromUtf8) === JSON.stringify(JSON.parse(text))
            """;
        Assert.True(engine.Evaluate(Compare).AsBoolean(), json);
    }

    [Fact]
    public void Not_one_JSON_value_is_refused()
    {
        var engine = new Engine();
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => new Utf8JsonToJsValue(engine).Parse("""{"a":1} {"b":2}"""u8.ToArray()));
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => new Utf8JsonToJsValue(engine).Parse("""{"a":"""u8.ToArray()));
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => new Utf8JsonToJsValue(engine).Parse(Array.Empty<byte>()));
        Assert.IsType<JsValue>(new Utf8JsonToJsValue(engine).Parse("{}"u8.ToArray()), exactMatch: false);
    }
}
