using System.Text;
using System.Text.Json;
using Ingest.Server.Scripting;

namespace Ingest.Server.Tests.Scripting;

/// <summary>
/// The consume thread's check of a body for a transform (<see cref="Utf8JsonToJsValue.IsOneValue"/>) says yes exactly
/// when the JSON reader reads one value to the end within <see cref="Utf8JsonToJsValue.MaxDepth"/>, whether the
/// object fast path or the reader answers.
/// </summary>
public sealed class IsOneValueTests
{
    public static TheoryData<string> Bodies() =>
    [
        """{"id":"c1","n":1.5,"a":[1,{"b":"x\"y"}],"t":true,"z":null}""",
        " {\"a\" : \"\\u0041\", \"b\":[ 1 , 2.50 ]} \n",
        "{}",
        "[1,2]",
        "\"text\"",
        "12",
        "{\"a\":1}{\"b\":2}",
        "{\"a\":1,}",
        "{\"a\":01}",
        "{\"a\":\"\\x\"}",
        "{\"a\":1 // comment\n}",
        "{\"a\":[1,2}",
        "{'a':1}",
        "",
        "   ",
        new string('[', 300) + new string(']', 300),
        "{\"a\":" + new string('[', 998) + new string(']', 998) + "}",
        "{\"a\":" + new string('[', 999) + new string(']', 999) + "}",
        "{\"a\":" + new string('[', 255) + new string(']', 255) + "}",
    ];

    [Theory]
    [MemberData(nameof(Bodies))]
    public void The_check_agrees_with_the_reader(string body)
    {
        var bytes = Encoding.UTF8.GetBytes(body);
        Assert.Equal(ReaderAccepts(bytes), Utf8JsonToJsValue.IsOneValue(bytes));
    }

    private static bool ReaderAccepts(byte[] bytes)
    {
        var reader = new Utf8JsonReader(bytes, new JsonReaderOptions { MaxDepth = Utf8JsonToJsValue.MaxDepth });
        try
        {
            if (!reader.Read())
            {
                return false;
            }

            reader.Skip();
            return !reader.Read();
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
