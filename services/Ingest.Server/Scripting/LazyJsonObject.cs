using Jint;
using Jint.Native;
using Jint.Native.Object;

namespace Ingest.Server.Scripting;

/// <summary>
/// A JSON object as a transform sees it, read from its UTF-8 bytes only as far as the script goes.
/// <para>
/// A read by name (<c>body.email</c>) is answered from the bytes: the first one indexes where each
/// top-level property's name and value are (<see cref="LazyJsonEntry"/>, one pass, no values made),
/// and each value is made when first read and kept. This is the engine's own-value hook
/// (<see cref="TryGetOwnPropertyValue"/>, with <see cref="ProbeOwnProperty"/> for <c>in</c>-style
/// checks), which answers exactly what <see cref="ObjectInstance.GetOwnProperty"/> would, without a
/// descriptor. A transform that reads six fields of a document with twenty no longer makes twenty
/// property descriptors and a dictionary for them (5.8 KB per message in the source transform's
/// micro benchmark, issue 30).
/// </para>
/// <para>
/// Anything else (a write, a delete, enumeration, a descriptor, a symbol or number key) goes through
/// the engine's ordinary object, which it first makes (<see cref="Initialize"/>, run by every such
/// path): the properties in the document's order, values already read kept (so identity holds), the
/// others <see cref="LazyJsonProperty"/> values made when read. The bytes must stay unchanged for the
/// object's life (a script may keep the object past its call), unless they were lent for one call
/// (<see cref="Utf8JsonToJsValue"/>): then reading them after it is a script error.
/// </para>
/// </summary>
internal sealed class LazyJsonObject : ObjectInstance
{
    private readonly Utf8JsonToJsValue _reader;
    private readonly ReadOnlyMemory<byte> _json;
    private readonly int _call;
    private LazyJsonEntry[]? _entries;
    private bool _notIndexable;

    /// <param name="engine">The engine the object belongs to.</param>
    /// <param name="reader">Reads the properties.</param>
    /// <param name="json">The object's bytes, <c>{</c> to <c>}</c> (a document may have whitespace around), known to be well-formed JSON.</param>
    public LazyJsonObject(Engine engine, Utf8JsonToJsValue reader, ReadOnlyMemory<byte> json)
        : base(engine)
    {
        _reader = reader;
        _json = json;
        _call = reader.Call;
    }

    /// <summary>The object's JSON as it came; a script error once lent bytes have gone back (<see cref="Utf8JsonToJsValue"/>).</summary>
    public ReadOnlyMemory<byte> Json
    {
        get
        {
            _reader.ThrowIfLentBytesReturned(_call);
            return _json;
        }
    }

    /// <summary>False once the engine's ordinary object was made (<see cref="Initialize"/>): from then on it holds the properties.</summary>
    public bool IsUnmaterialized { get; private set; } = true;

    /// <summary>
    /// True while what the object holds is still exactly <see cref="Json"/>: not made into an ordinary
    /// object, and no nested object or array handed out (the script may have changed it). Strings and
    /// numbers read do not count: they cannot change.
    /// </summary>
    public bool IsUntouched
    {
        get
        {
            if (!IsUnmaterialized)
            {
                return false;
            }

            foreach (var entry in _entries.AsSpan())
            {
                if (entry.Value is ObjectInstance)
                {
                    return false;
                }
            }

            return true;
        }
    }

    /// <summary>The index, with the values read so far, while <see cref="IsUnmaterialized"/>; null before the first read by name.</summary>
    internal ReadOnlySpan<LazyJsonEntry> Entries => _entries;

    protected override bool TryGetOwnPropertyValue(JsValue property, JsValue receiver, out JsValue value)
    {
        var entries = IsUnmaterialized && property is JsString ? Index() : null;
        if (entries is null)
        {
            return base.TryGetOwnPropertyValue(property, receiver, out value);
        }

        var found = _reader.Find(Json.Span, entries, property.ToString());
        if (found < 0)
        {
            value = JsValue.Undefined;
            return false;
        }

        ref var entry = ref entries[found];
        value = entry.Value ??= _reader.ReadValue(Json, entry);
        return true;
    }

    protected override OwnPropertyProbe ProbeOwnProperty(JsValue property)
    {
        var entries = IsUnmaterialized && property is JsString ? Index() : null;
        if (entries is null)
        {
            return base.ProbeOwnProperty(property);
        }

        return _reader.Find(Json.Span, entries, property.ToString()) < 0 ? OwnPropertyProbe.Missing : OwnPropertyProbe.Enumerable;
    }

    protected override void Initialize()
    {
        IsUnmaterialized = false;
        var entries = _entries;
        _entries = null;
        _reader.ReadProperties(this, entries);
    }

    // Null when names are not found from the bytes (an escaped name): the ordinary object answers.
    private LazyJsonEntry[]? Index()
    {
        if (_entries is null && !_notIndexable)
        {
            _entries = _reader.Index(Json.Span);
            _notIndexable = _entries is null;
        }

        return _entries;
    }
}
