using Jint.Native;
using Jint.Runtime.Descriptors;

namespace Ingest.Server.Scripting;

/// <summary>
/// A writable, enumerable, configurable data property of a <see cref="LazyJsonObject"/> whose value
/// (a string, object or array) is made from its JSON only when the script reads it. Until then the
/// serializer copies <see cref="UnreadJson"/> instead of building the value and writing it back.
/// </summary>
internal sealed class LazyJsonProperty : PropertyDescriptor
{
    private readonly Utf8JsonToJsValue _reader;
    private readonly int _call;
    private ReadOnlyMemory<byte> _json;
    private JsValue? _value;

    /// <param name="reader">Makes the value.</param>
    /// <param name="json">The value's bytes (a string with its quotes, an object or an array).</param>
    public LazyJsonProperty(Utf8JsonToJsValue reader, ReadOnlyMemory<byte> json)
        : base(PropertyFlag.ConfigurableEnumerableWritable | PropertyFlag.CustomJsValue)
    {
        _reader = reader;
        _json = json;
        _call = reader.Call;
    }

    /// <summary>The value's JSON while the value has not been made (nor replaced); empty once it has.</summary>
    public ReadOnlyMemory<byte> UnreadJson => _value is null ? LentJson() : default;

    protected override JsValue? CustomValue
    {
        get => _value ??= _reader.Materialize(LentJson());
        set
        {
            _value = value;
            _json = default;
        }
    }

    private ReadOnlyMemory<byte> LentJson()
    {
        _reader.ThrowIfLentBytesReturned(_call);
        return _json;
    }
}
