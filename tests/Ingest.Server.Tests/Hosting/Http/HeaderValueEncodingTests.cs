using Ingest.Server.Hosting.Http;


namespace Ingest.Server.Tests.Hosting.Http;

public sealed class HeaderValueEncodingTests
{
    [Theory]
    [InlineData("Orders", "Orders")]
    [InlineData("Orders 2026", "Orders 2026")]
    [InlineData("a,b;c=\"d\"", "a,b;c=\"d\"")]
    [InlineData("Café", "UTF-8''Caf%C3%A9")]
    [InlineData("注文", "UTF-8''%E6%B3%A8%E6%96%87")]
    [InlineData("Bell\u0007", "UTF-8''Bell%07")]
    [InlineData("Line\r\nBreak", "UTF-8''Line%0D%0ABreak")]
    [InlineData(" padded ", "UTF-8''%20padded%20")]
    [InlineData("UTF-8''Orders", "UTF-8''UTF-8%27%27Orders")]
    [InlineData("100% done", "100% done")]
    public void Values_that_are_not_plain_printable_ascii_are_rfc8187_encoded(string value, string expected)
    {
        Assert.Equal(expected, HeaderValueEncoding.Encode(value));
    }

    [Theory]
    [InlineData("Orders")]
    [InlineData("Café")]
    [InlineData("👩‍💻 team")]
    [InlineData("Bell\u0007")]
    [InlineData(" padded ")]
    [InlineData("UTF-8''Orders")]
    [InlineData("utf-8''lower")]
    public void Every_value_decodes_back_to_itself(string value)
    {
        Assert.True(HeaderValueEncoding.TryDecode(HeaderValueEncoding.Encode(value), out var decoded, out var error), error);
        Assert.Equal(value, decoded);
    }

    [Theory]
    [InlineData("UTF-8''%FF", "not valid UTF-8")]
    [InlineData("UTF-8''%ED%A0%80", "not valid UTF-8")]
    [InlineData("UTF-8''50%", "two hexadecimal digits")]
    public void A_malformed_extended_value_does_not_decode(string value, string expected)
    {
        Assert.False(HeaderValueEncoding.TryDecode(value, out _, out var error));
        Assert.Contains(expected, error, StringComparison.Ordinal);
    }
}
