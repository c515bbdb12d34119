using System.Text;
using Ingest.Contracts.Messages;

namespace Ingest.Server.Sources.Mapping;

/// <summary>
/// Headers held in a dictionary, the shape AMQP clients hand out for application properties.
/// Values may be <see cref="T:byte[]"/> (what AMQP long strings arrive as),
/// <see cref="ReadOnlyMemory{T}"/> of bytes, or <see cref="string"/> (encoded on lookup);
/// a null or any other value counts as absent.
/// </summary>
public sealed class DictionaryMessageHeaders(IDictionary<string, object?>? headers) : IMessageHeaders
{
    public bool TryGetValue(string name, out ReadOnlySpan<byte> utf8Value)
    {
        object? value = null;
        if (headers is not null && headers.TryGetValue(name, out value))
        {
            switch (value)
            {
                case byte[] bytes:
                    utf8Value = bytes;
                    return true;
                case ReadOnlyMemory<byte> memory:
                    utf8Value = memory.Span;
                    return true;
                case string text:
                    utf8Value = Encoding.UTF8.GetBytes(text);
                    return true;
            }
        }

        utf8Value = default;
        return false;
    }
}
