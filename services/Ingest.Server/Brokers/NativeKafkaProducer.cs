using System.Runtime.InteropServices;
using System.Text;

namespace Ingest.Server.Brokers;

/// <summary>Receives the delivery reports of the records that carry its GC handle as their opaque.</summary>
internal interface IKafkaDeliveryReports
{
    /// <summary>One record's report: 0 when the broker acknowledged it, else librdkafka's error code. Called on the producer's poll thread; must not throw.</summary>
    void Delivered(int error);
}

/// <summary>
/// A Kafka producer on librdkafka's C API without the Confluent.Kafka binding in between, for
/// senders that hand over many records with many headers: a record goes to librdkafka in one
/// native call (<c>rd_kafka_produceva</c>: key, value and every header, copied by librdkafka),
/// where the binding marshals and allocates each header separately, and a delivery report carries
/// only its error and the opaque the sender chose (a handle per batch of records rather than per
/// record). The settings are librdkafka's own (<see cref="KafkaClientSettings"/>): the binding's
/// <c>dotnet.*</c> settings are unknown here. Delivery reports are served on a thread of the producer's.
/// Producing is for one caller at a time.
/// </summary>
internal sealed unsafe class NativeKafkaProducer : IDisposable
{
    private const int ErrorLength = 512;

    private readonly nint _handle;
    private readonly Dictionary<string, nint> _topics = new(StringComparer.Ordinal);
    private readonly Thread _poller;
    private GCHandle _self;
    private volatile KafkaClientFailure? _credentialFailure;
    private volatile bool _purgeRequested;
    private volatile bool _closing;
    private bool _disposed;

    /// <summary>Creates the producer (it connects in the background).</summary>
    /// <exception cref="ArgumentException">A setting is unknown or its value invalid (librdkafka's message).</exception>
    public NativeKafkaProducer(IEnumerable<KeyValuePair<string, string>> settings, string threadName)
    {
        ArgumentNullException.ThrowIfNull(settings);

        LibRdKafka.Initialize();
        var conf = LibRdKafka.ConfNew();
        var error = stackalloc byte[ErrorLength];
        try
        {
            foreach (var (name, value) in settings)
            {
                if (value is null)
                {
                    continue;
                }

                if (LibRdKafka.ConfSet(conf, name, value, error, ErrorLength) != LibRdKafka.ConfOk)
                {
                    throw new ArgumentException($"Kafka setting '{name}': {Marshal.PtrToStringUTF8((nint)error)}", nameof(settings));
                }
            }

            LibRdKafka.ConfSetDeliveryReportCallback(conf, &OnDelivery);
            LibRdKafka.ConfSetLogCallback(conf, &OnLog);
            LibRdKafka.ConfSetErrorCallback(conf, &OnError);
            _self = GCHandle.Alloc(this, GCHandleType.Weak);
            LibRdKafka.ConfSetOpaque(conf, GCHandle.ToIntPtr(_self));
            _handle = LibRdKafka.New(LibRdKafka.ProducerType, conf, error, ErrorLength);
        }
        catch
        {
            LibRdKafka.ConfDestroy(conf);
            FreeSelf();
            throw;
        }

        if (_handle == 0)
        {
            // rd_kafka_new keeps the configuration only when it succeeds.
            LibRdKafka.ConfDestroy(conf);
            FreeSelf();
            throw new ArgumentException($"Kafka producer: {Marshal.PtrToStringUTF8((nint)error)}", nameof(settings));
        }

        _poller = new Thread(Poll) { IsBackground = true, Name = threadName };
        _poller.Start();
    }

    /// <summary>
    /// The last refused login or failed TLS handshake, until <see cref="ClearCredentialFailure"/>. On each
    /// one, records waiting in the producer's queue are failed at once (a retry of the batch brings them
    /// back) rather than timing out after <c>message.timeout.ms</c> with no word of the cause.
    /// </summary>
    public KafkaClientFailure? CredentialFailure => _credentialFailure;

    /// <summary>The broker acknowledged records again: an earlier credential failure is over.</summary>
    public void ClearCredentialFailure() => _credentialFailure = null;

    /// <summary>The handle of <paramref name="topic"/>, made once per producer.</summary>
    /// <exception cref="ArgumentException">librdkafka does not accept the topic name.</exception>
    public nint Topic(string topic)
    {
        ObjectDisposedException.ThrowIf(_disposed, this);
        if (!_topics.TryGetValue(topic, out var handle))
        {
            handle = LibRdKafka.TopicNew(_handle, topic, 0);
            if (handle == 0)
            {
                throw new ArgumentException($"Kafka does not accept the topic name '{topic}': {ErrorText(LibRdKafka.LastError())}", nameof(topic));
            }

            _topics[topic] = handle;
        }

        return handle;
    }

    /// <summary>
    /// Hands one record to librdkafka (it copies everything the fields point to). Returns 0, or
    /// librdkafka's error code with its message (<see cref="LibRdKafka.ErrQueueFull"/>: try again once
    /// reports drained the queue).
    /// </summary>
    public int Produce(KafkaRecordBuilder record, out string? error)
    {
        ArgumentNullException.ThrowIfNull(record);
        ObjectDisposedException.ThrowIf(_disposed, this);
        var result = LibRdKafka.ProduceVa(_handle, record.Fields, (nuint)record.FieldCount);
        if (result == 0)
        {
            error = null;
            return 0;
        }

        var code = LibRdKafka.ErrorCode(result);
        error = code == LibRdKafka.ErrQueueFull ? null : Marshal.PtrToStringUTF8((nint)LibRdKafka.ErrorString(result));
        LibRdKafka.ErrorDestroy(result);
        return code;
    }

    /// <summary>librdkafka's description of an error code.</summary>
    public static string ErrorText(int code)
    {
        LibRdKafka.Initialize();
        return Marshal.PtrToStringUTF8((nint)LibRdKafka.ErrorToString(code)) ?? code.ToString(System.Globalization.CultureInfo.InvariantCulture);
    }

    /// <summary>
    /// Closes the producer without waiting for acknowledgements: records not yet acknowledged are
    /// purged and reported as failed, so every sender's batch completes (faulted) rather than never.
    /// </summary>
    public void Dispose()
    {
        if (_disposed)
        {
            return;
        }

        _disposed = true;
        _ = LibRdKafka.Purge(_handle, LibRdKafka.PurgeQueue | LibRdKafka.PurgeInFlight);
        _closing = true;
        _poller.Join();

        // The purged records' reports, served here now that the poll thread is gone.
        _ = LibRdKafka.Poll(_handle, 0);
        foreach (var topic in _topics.Values)
        {
            LibRdKafka.TopicDestroy(topic);
        }

        _topics.Clear();
        LibRdKafka.Destroy(_handle);
        FreeSelf();
    }

    private void FreeSelf()
    {
        if (_self.IsAllocated)
        {
            _self.Free();
        }
    }

    private void Poll()
    {
        while (!_closing)
        {
            _ = LibRdKafka.Poll(_handle, 100);
            if (_purgeRequested)
            {
                // Here rather than in the error callback that asked for it: not from inside librdkafka's own callback.
                _purgeRequested = false;
                _ = LibRdKafka.Purge(_handle, LibRdKafka.PurgeQueue);
            }
        }
    }

    private static NativeKafkaProducer? FromOpaque(nint opaque) =>
        opaque == 0 ? null : GCHandle.FromIntPtr(opaque).Target as NativeKafkaProducer;

    // Client-wide errors, on the poll thread. Only credential errors are kept: the others (a broker away,
    // "all brokers are down") reach the sender through its records' delivery reports.
    [UnmanagedCallersOnly]
    private static void OnError(nint producer, int error, byte* reason, nint opaque)
    {
        var code = (Confluent.Kafka.ErrorCode)error;
        if (KafkaClientError.IsCredentialError(code) && FromOpaque(opaque) is { } self)
        {
            self._credentialFailure = new KafkaClientFailure(code, Marshal.PtrToStringUTF8((nint)reason) ?? string.Empty);
            self._purgeRequested = true;
        }
    }

    [UnmanagedCallersOnly]
    private static void OnDelivery(nint producer, LibRdKafka.Message* message, nint opaque)
    {
        if (message->Private != 0)
        {
            ((IKafkaDeliveryReports)GCHandle.FromIntPtr(message->Private).Target!).Delivered(message->Error);
        }
    }

    // librdkafka logs to stderr by default; the task reports failures through its delivery reports instead.
    [UnmanagedCallersOnly]
    private static void OnLog(nint producer, int level, byte* facility, byte* text)
    {
    }

    /// <summary>A NUL-terminated UTF-8 copy of <paramref name="text"/> in native memory, freed with <see cref="NativeMemory.Free(void*)"/>.</summary>
    public static byte* NativeString(string text, out int length)
    {
        ArgumentNullException.ThrowIfNull(text);
        length = Encoding.UTF8.GetByteCount(text);
        var bytes = (byte*)NativeMemory.Alloc((nuint)length + 1);
        Encoding.UTF8.GetBytes(text, new Span<byte>(bytes, length));
        bytes[length] = 0;
        return bytes;
    }
}
