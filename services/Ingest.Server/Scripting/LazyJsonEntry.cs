using Jint.Native;

namespace Ingest.Server.Scripting;

/// <summary>
/// One top-level property of a <see cref="LazyJsonObject"/> the script reads by name before anything
/// made it an ordinary object: where its name and value are in the object's JSON, and the value once
/// read (kept, so a nested object read twice is the same object).
/// </summary>
/// <param name="NameStart">The name's first byte (after its quote); the name has no escapes.</param>
/// <param name="NameLength">The name's length in bytes.</param>
/// <param name="ValueStart">The value's first byte.</param>
/// <param name="ValueEnd">The byte after the value.</param>
internal record struct LazyJsonEntry(int NameStart, int NameLength, int ValueStart, int ValueEnd)
{
    /// <summary>The value, once read.</summary>
    public JsValue? Value { get; set; }
}
