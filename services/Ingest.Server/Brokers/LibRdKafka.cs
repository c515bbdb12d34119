using System.Runtime.InteropServices;

namespace Ingest.Server.Brokers;

/// <summary>
/// The part of librdkafka's C API the ETL producer calls itself (rdkafka.h), bound to the very file
/// Confluent.Kafka loaded: librdkafka.redist ships several Linux builds (the plain one needs
/// libsasl2.so.3, which not every distribution has; the binding falls back to another), so rather
/// than probing on its own, this binding lets Confluent.Kafka load its choice and then opens the
/// same file, keeping one librdkafka in the process. Call <see cref="Initialize"/> before any import.
/// </summary>
internal static unsafe partial class LibRdKafka
{
    private const string Library = "librdkafka";
    private static readonly Lazy<bool> Resolver = new(static () =>
    {
        NativeLibrary.SetDllImportResolver(typeof(LibRdKafka).Assembly, Resolve);
        return true;
    });

    public const int ProducerType = 0;
    public const int ConfOk = 0;
    public const int PartitionUnassigned = -1;
    public const int MsgFlagCopy = 0x2;
    public const int PurgeQueue = 0x1;
    public const int PurgeInFlight = 0x2;
    public const int ErrQueueFull = -184;

    /// <summary>Makes the imports below resolve to the librdkafka Confluent.Kafka loaded (once per process).</summary>
    public static void Initialize() => _ = Resolver.Value;

    /// <summary>The path of the librdkafka mapped into this process, or null (not Linux, or none loaded).</summary>
    public static string? LoadedPath()
    {
        if (!OperatingSystem.IsLinux())
        {
            return null;
        }

        foreach (var line in File.ReadLines("/proc/self/maps"))
        {
            var start = line.IndexOf('/', StringComparison.Ordinal);
            if (start >= 0 && Path.GetFileName(line.AsSpan(start)).Contains("librdkafka", StringComparison.Ordinal))
            {
                return line[start..];
            }
        }

        return null;
    }

    private static nint Resolve(string name, System.Reflection.Assembly assembly, DllImportSearchPath? searchPath)
    {
        if (name != Library)
        {
            return 0;
        }

        Confluent.Kafka.Library.Load();

        // Elsewhere than Linux the runtime's own probing finds the binding's file by the same name.
        return LoadedPath() is { } path ? NativeLibrary.Load(path) : 0;
    }

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_new")]
    public static partial nint ConfNew();

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_set", StringMarshalling = StringMarshalling.Utf8)]
    public static partial int ConfSet(nint conf, string name, string value, byte* errstr, nuint errstrSize);

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_destroy")]
    public static partial void ConfDestroy(nint conf);

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_set_dr_msg_cb")]
    public static partial void ConfSetDeliveryReportCallback(nint conf, delegate* unmanaged<nint, Message*, nint, void> callback);

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_set_error_cb")]
    public static partial void ConfSetErrorCallback(nint conf, delegate* unmanaged<nint, int, byte*, nint, void> callback);

    /// <summary>The pointer every callback of the client gets as its last argument.</summary>
    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_set_opaque")]
    public static partial void ConfSetOpaque(nint conf, nint opaque);

    [LibraryImport(Library, EntryPoint = "rd_kafka_conf_set_log_cb")]
    public static partial void ConfSetLogCallback(nint conf, delegate* unmanaged<nint, int, byte*, byte*, void> callback);

    [LibraryImport(Library, EntryPoint = "rd_kafka_new")]
    public static partial nint New(int type, nint conf, byte* errstr, nuint errstrSize);

    [LibraryImport(Library, EntryPoint = "rd_kafka_destroy")]
    public static partial void Destroy(nint rk);

    [LibraryImport(Library, EntryPoint = "rd_kafka_topic_new", StringMarshalling = StringMarshalling.Utf8)]
    public static partial nint TopicNew(nint rk, string topic, nint conf);

    [LibraryImport(Library, EntryPoint = "rd_kafka_topic_destroy")]
    public static partial void TopicDestroy(nint rkt);

    [LibraryImport(Library, EntryPoint = "rd_kafka_produceva")]
    public static partial nint ProduceVa(nint rk, Vu* vus, nuint count);

    [LibraryImport(Library, EntryPoint = "rd_kafka_error_code")]
    public static partial int ErrorCode(nint error);

    [LibraryImport(Library, EntryPoint = "rd_kafka_error_string")]
    public static partial byte* ErrorString(nint error);

    [LibraryImport(Library, EntryPoint = "rd_kafka_error_destroy")]
    public static partial void ErrorDestroy(nint error);

    [LibraryImport(Library, EntryPoint = "rd_kafka_poll")]
    public static partial int Poll(nint rk, int timeoutMs);

    [LibraryImport(Library, EntryPoint = "rd_kafka_purge")]
    public static partial int Purge(nint rk, int flags);

    [LibraryImport(Library, EntryPoint = "rd_kafka_last_error")]
    public static partial int LastError();

    [LibraryImport(Library, EntryPoint = "rd_kafka_err2str")]
    public static partial byte* ErrorToString(int error);

    /// <summary>rd_kafka_vtype_t: what an <see cref="Vu"/> entry of rd_kafka_produceva carries.</summary>
    public enum VType
    {
        End = 0,
        Topic = 1,
        TopicHandle = 2,
        Partition = 3,
        Value = 4,
        Key = 5,
        Opaque = 6,
        MsgFlags = 7,
        Timestamp = 8,
        Header = 9,
        Headers = 10,
    }

    /// <summary>rd_kafka_vu_t: a type and a 64-byte union (pointer, size; or name, value, size for a header).</summary>
    [StructLayout(LayoutKind.Explicit, Size = 72)]
    public struct Vu
    {
        [FieldOffset(0)]
        public VType Type;

        [FieldOffset(8)]
        public nint Pointer;

        [FieldOffset(8)]
        public int Int;

        [FieldOffset(16)]
        public nint Size;

        [FieldOffset(16)]
        public nint HeaderValue;

        [FieldOffset(24)]
        public nint HeaderSize;
    }

    /// <summary>rd_kafka_message_t, as a delivery report sees it: the error and the record's opaque.</summary>
    [StructLayout(LayoutKind.Sequential)]
    public struct Message
    {
        public int Error;
        public nint Topic;
        public int Partition;
        public nint Payload;
        public nuint Length;
        public nint Key;
        public nuint KeyLength;
        public long Offset;
        public nint Private;
    }
}
