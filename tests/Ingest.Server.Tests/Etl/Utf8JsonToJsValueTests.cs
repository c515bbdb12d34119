using System.Text;
using Ingest.Server.Scripting;
using Jint;
using Jint.Native;

namespace Ingest.Server.Tests.Etl;

/// <summary>The UTF-8 document reader gives transforms exactly what the engine's own JSON.parse gives.</summary>
public sealed class Utf8JsonToJsValueTests
{
    public static TheoryData<string> Documents =>
    [
        """{"N":1,"Region":"eu","Lines":[{"Product":"tea","Qty":2,"Price":3.5},{"Product":"cake","Qty":1,"Price":-0.25}],"Ship":{"City":"Zürich","Zip":null},"Paid":true,"Gift":false}""",
        """{"escapes":"quote \" backslash \\ tab \t newline \n unicode \u00e9 \ud83d\ude00 slash \/","emoji":"😀","empty":"","nested":[[],{},[[1]]]}""",
        """{"big":1e400,"small":-1e-400,"int":9007199254740993,"exp":1.5E3,"neg":-0,"zero":0}""",
        """{"dup":1,"other":2,"dup":3}""",
        """{"__proto__":{"polluted":true},"constructor":"c","toString":"t"}""",
        """[1,"two",null,true,{"three":3}]""",
        "\"just a string\"",
        "  42  ",
        "null",
    ];

    [Theory]
    [MemberData(nameof(Documents))]
    public void A_document_reads_as_JSON_parse_reads_it(string json)
    {
        var engine = new Engine();
        engine.SetValue("fromUtf8", Utf8JsonToJsValue.Parse(engine, Encoding.UTF8.GetBytes(json)));
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
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => Utf8JsonToJsValue.Parse(engine, """{"a":1} {"b":2}"""u8));
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => Utf8JsonToJsValue.Parse(engine, """{"a":"""u8));
        Assert.ThrowsAny<System.Text.Json.JsonException>(() => Utf8JsonToJsValue.Parse(engine, ""u8));
        Assert.IsType<JsValue>(Utf8JsonToJsValue.Parse(engine, "{}"u8), exactMatch: false);
    }
}
