using System.Buffers;
using System.Text.Json;

namespace Ingest.Server.Scripting;

/// <summary>
/// Copies JSON read from a document (a <see cref="LazyJsonObject"/> the script did not touch, a
/// <see cref="LazyJsonProperty"/> it did not read) to the output of <see cref="Utf8JsonFromJsValue"/>, only
/// re-escaped where the document's spelling differs from what <c>JSON.stringify</c> writes. One per
/// serializer, used by one caller at a time.
/// </summary>
internal sealed class LazyJsonCopier(ArrayBufferWriter<byte> output)
{
    // An object with more properties is written from its values (whose dictionary drops repeats).
    private const int MaxCopiedNames = 256;
    private static readonly JsonReaderOptions ReaderOptions = new() { MaxDepth = Utf8JsonToJsValue.MaxDepth };

    private readonly ArrayBufferWriter<byte> _output = output;
    private readonly List<int> _nameHashes = [];
    private readonly List<int> _objectStarts = [];

    /// <summary>
    /// Writes a value read from a document as <c>JSON.stringify</c> would write what <c>JSON.parse</c>
    /// makes of it; false (nothing written) when that needs the value itself: an object with an
    /// escaped or repeated property name (the last duplicate wins in <c>JSON.parse</c>).
    /// </summary>
    public bool TryCopy(ReadOnlySpan<byte> json)
    {
        var mark = _output.WrittenCount;
        var hashes = _nameHashes;
        var reader = new Utf8JsonReader(json, ReaderOptions);
        var previous = JsonTokenType.None;

        // The open objects' names as hashes, each object's from its start in _objectStarts.
        hashes.Clear();
        _objectStarts.Clear();
        while (reader.Read())
        {
            var token = reader.TokenType;
            if (previous is not (JsonTokenType.None or JsonTokenType.StartObject or JsonTokenType.StartArray or JsonTokenType.PropertyName)
                && token is not (JsonTokenType.EndObject or JsonTokenType.EndArray))
            {
                _output.Write(","u8);
            }

            switch (token)
            {
                case JsonTokenType.StartObject:
                    _objectStarts.Add(hashes.Count);
                    _output.Write("{"u8);
                    break;
                case JsonTokenType.EndObject:
                    var start = _objectStarts[^1];
                    _objectStarts.RemoveAt(_objectStarts.Count - 1);
                    hashes.RemoveRange(start, hashes.Count - start);
                    _output.Write("}"u8);
                    break;
                case JsonTokenType.StartArray:
                    _output.Write("["u8);
                    break;
                case JsonTokenType.EndArray:
                    _output.Write("]"u8);
                    break;
                case JsonTokenType.PropertyName:
                    if (reader.ValueIsEscaped || !AddName(reader.ValueSpan))
                    {
                        Rewind(mark);
                        return false;
                    }

                    _output.Write("\""u8);
                    _output.Write(reader.ValueSpan);
                    _output.Write("\":"u8);
                    break;
                case JsonTokenType.String:
                    if (reader.ValueIsEscaped)
                    {
                        StringifyWriter.WriteString(_output, Utf8JsonToJsValue.Unescape(reader.ValueSpan));
                    }
                    else
                    {
                        _output.Write("\""u8);
                        _output.Write(reader.ValueSpan);
                        _output.Write("\""u8);
                    }

                    break;
                case JsonTokenType.Number:
                    CopyNumber(reader.ValueSpan);
                    break;
                case JsonTokenType.True:
                    _output.Write("true"u8);
                    break;
                case JsonTokenType.False:
                    _output.Write("false"u8);
                    break;
                default:
                    _output.Write("null"u8);
                    break;
            }

            previous = token;
        }

        return true;
    }

    // False if the open object may already have the name (equal hashes count as a repeat: the
    // value path then gives the exact answer), or has too many names to compare each new one with all.
    private bool AddName(ReadOnlySpan<byte> name)
    {
        var hash = new HashCode();
        hash.AddBytes(name);
        var value = hash.ToHashCode();
        var names = System.Runtime.InteropServices.CollectionsMarshal.AsSpan(_nameHashes)[_objectStarts[^1]..];
        if (names.Length >= MaxCopiedNames || names.Contains(value))
        {
            return false;
        }

        _nameHashes.Add(value);
        return true;
    }

    private void Rewind(int mark)
    {
        // ArrayBufferWriter cannot shrink its count; copy what stays to a fresh start.
        var kept = _output.WrittenSpan[..mark].ToArray();
        _output.ResetWrittenCount();
        _output.Write(kept);
    }

    /// <summary>A JSON number as JavaScript writes the double it reads as: integers of up to 15 digits are already so.</summary>
    private void CopyNumber(ReadOnlySpan<byte> token)
    {
        var digits = token[0] == (byte)'-' ? token[1..] : token;
        if (digits.Length <= 15 && !digits.ContainsAnyExcept("0123456789"u8) && !(token[0] == (byte)'-' && digits is [(byte)'0']))
        {
            _output.Write(token);
            return;
        }

        StringifyWriter.WriteNumber(_output, Utf8JsonToJsValue.ReadNumber(token));
    }
}
