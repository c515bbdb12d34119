using Jint;
using Jint.Native.Object;

namespace Ingest.Server.Scripting;

/// <summary>
/// A JSON object as a transform sees it, read from its UTF-8 bytes only when the script first
/// touches it (any property read, write, enumeration or check runs <see cref="Initialize"/> first,
/// as for the engine's own lazily built objects). A script that reads two fields of a document
/// pays for its top level, not for every nested object, array and string in it: those become
/// <see cref="LazyJsonProperty"/> values, read when the script reads them. The bytes must stay
/// unchanged for the object's life (a script may keep the object past its call).
/// </summary>
internal sealed class LazyJsonObject : ObjectInstance
{
    private readonly Utf8JsonToJsValue _reader;
    private bool _readByCaller;

    /// <param name="engine">The engine the object belongs to.</param>
    /// <param name="reader">Reads the properties on first touch.</param>
    /// <param name="json">The object's bytes, <c>{</c> to <c>}</c> (a document may have whitespace around), known to be well-formed JSON.</param>
    public LazyJsonObject(Engine engine, Utf8JsonToJsValue reader, ReadOnlyMemory<byte> json)
        : base(engine)
    {
        _reader = reader;
        Json = json;
    }

    /// <summary>The object's JSON as it came.</summary>
    public ReadOnlyMemory<byte> Json { get; }

    /// <summary>True while nothing has touched the object: what it holds is still exactly <see cref="Json"/>.</summary>
    public bool IsUntouched { get; private set; } = true;

    /// <summary>Marks the object read without reading it: the caller defines its properties next (a document's top level, read with the check).</summary>
    public void ReadNow()
    {
        _readByCaller = true;
        EnsureInitialized();
    }

    protected override void Initialize()
    {
        IsUntouched = false;
        if (!_readByCaller)
        {
            _reader.ReadProperties(this);
        }
    }
}
