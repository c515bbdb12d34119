using System.Runtime.InteropServices;

namespace Ingest.Server.Brokers;

/// <summary>
/// One record at a time, as the fields of an <c>rd_kafka_produceva</c> call (see
/// <see cref="NativeKafkaProducer.Produce"/>), with a native scratch buffer for the bytes a record
/// needs written (its key, its own header values). Reused for every record: nothing is allocated per
/// record once the buffers are large enough. What the fields point to must stay put until the
/// record is produced (librdkafka copies it then): the scratch buffer, native memory of the
/// caller's, or memory the caller pins.
/// </summary>
internal sealed unsafe class KafkaRecordBuilder : IDisposable
{
    private LibRdKafka.Vu* _fields;
    private int _fieldCapacity;
    private byte* _scratch;
    private int _scratchCapacity;
    private int _scratchUsed;

    // Where Start puts the flags entry.
    private const int FlagsField = 2;

    // The non-null pointer of an empty value: a null pointer would make the record a tombstone.
    private static readonly byte* Empty = (byte*)NativeMemory.AllocZeroed(1);

    public KafkaRecordBuilder()
    {
        _fieldCapacity = 16;
        _fields = (LibRdKafka.Vu*)NativeMemory.AllocZeroed((nuint)(_fieldCapacity * sizeof(LibRdKafka.Vu)));
        _scratchCapacity = 4096;
        _scratch = (byte*)NativeMemory.Alloc((nuint)_scratchCapacity);
    }

    public LibRdKafka.Vu* Fields => _fields;

    public int FieldCount { get; private set; }

    /// <summary>
    /// Starts a record for <paramref name="topic"/> (a handle from <see cref="NativeKafkaProducer.Topic"/>),
    /// partitioned by its key, whose delivery report carries <paramref name="opaque"/>; the record's
    /// scratch bytes will not exceed <paramref name="scratchBytes"/>.
    /// </summary>
    public void Start(nint topic, nint opaque, int scratchBytes)
    {
        ObjectDisposedException.ThrowIf(_fields == null, this);
        FieldCount = 0;
        _scratchUsed = 0;
        if (scratchBytes > _scratchCapacity)
        {
            _scratchCapacity = Math.Max(scratchBytes, _scratchCapacity * 2);
            _scratch = (byte*)NativeMemory.Realloc(_scratch, (nuint)_scratchCapacity);
        }

        Add(LibRdKafka.VType.TopicHandle).Pointer = topic;
        Add(LibRdKafka.VType.Partition).Int = LibRdKafka.PartitionUnassigned;
        Add(LibRdKafka.VType.MsgFlags);
        Add(LibRdKafka.VType.Opaque).Pointer = opaque;
    }

    /// <summary><paramref name="length"/> bytes of the record's scratch space, to write into.</summary>
    public Span<byte> Reserve(int length, out byte* pointer)
    {
        if (_scratchUsed + length > _scratchCapacity)
        {
            throw new InvalidOperationException("The record needs more scratch space than Start was told.");
        }

        pointer = _scratch + _scratchUsed;
        _scratchUsed += length;
        return new Span<byte>(pointer, length);
    }

    /// <summary>Gives back the end of the last <see cref="Reserve"/> that was not written.</summary>
    public void Unreserve(int length) => _scratchUsed -= length;

    public void Key(byte* key, int length)
    {
        ref var field = ref Add(LibRdKafka.VType.Key);
        field.Pointer = (nint)key;
        field.Size = length;
    }

    /// <summary>The value, <paramref name="length"/> bytes (none: an empty value, whatever the pointer), copied by librdkafka.</summary>
    public void Value(byte* value, int length)
    {
        _fields[FlagsField].Int = LibRdKafka.MsgFlagCopy;
        ValueInPlace(value, length);
    }

    /// <summary>
    /// The value, read by librdkafka where it is until the record's delivery report (or the producer's
    /// end): the caller keeps it there, and saves librdkafka a copy in a heap block of its own per record.
    /// </summary>
    public void ValueInPlace(byte* value, int length)
    {
        ref var field = ref Add(LibRdKafka.VType.Value);
        field.Pointer = (nint)(length == 0 ? Empty : value);
        field.Size = length;
    }

    /// <summary>A null value: the record is a tombstone.</summary>
    public void Tombstone() => Add(LibRdKafka.VType.Value);

    /// <summary>A header: <paramref name="name"/> NUL-terminated UTF-8, the value <paramref name="length"/> bytes.</summary>
    public void Header(byte* name, byte* value, int length)
    {
        ref var field = ref Add(LibRdKafka.VType.Header);
        field.Pointer = (nint)name;
        field.HeaderValue = (nint)(length == 0 ? Empty : value);
        field.HeaderSize = length;
    }

    /// <summary>The record's headers as they stand (for tests and diagnostics: allocates).</summary>
    public List<(string Name, byte[] Value)> ReadHeaders()
    {
        var headers = new List<(string, byte[])>();
        for (var i = 0; i < FieldCount; i++)
        {
            if (_fields[i].Type == LibRdKafka.VType.Header)
            {
                headers.Add((Marshal.PtrToStringUTF8(_fields[i].Pointer)!, new ReadOnlySpan<byte>((void*)_fields[i].HeaderValue, (int)_fields[i].HeaderSize).ToArray()));
            }
        }

        return headers;
    }

    /// <summary>The record's key or value bytes as they stand (null: none, or a tombstone's value; for tests: allocates).</summary>
    public byte[]? Read(LibRdKafka.VType type)
    {
        for (var i = 0; i < FieldCount; i++)
        {
            if (_fields[i].Type == type)
            {
                return _fields[i].Pointer == 0 ? null : new ReadOnlySpan<byte>((void*)_fields[i].Pointer, (int)_fields[i].Size).ToArray();
            }
        }

        return null;
    }

    public void Dispose()
    {
        NativeMemory.Free(_fields);
        NativeMemory.Free(_scratch);
        _fields = null;
        _scratch = null;
    }

    private ref LibRdKafka.Vu Add(LibRdKafka.VType type)
    {
        if (FieldCount == _fieldCapacity)
        {
            _fieldCapacity *= 2;
            _fields = (LibRdKafka.Vu*)NativeMemory.Realloc(_fields, (nuint)(_fieldCapacity * sizeof(LibRdKafka.Vu)));
        }

        ref var field = ref _fields[FieldCount++];
        field = default;
        field.Type = type;
        return ref field;
    }
}
