using System.Text.Json;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// Whether a Kafka source is connected, and the problem if not. Two kinds of trouble are kept
/// apart: the connection's (the client's error callback, cleared as soon as the client's
/// statistics show a broker connection up again, with or without traffic) and the consume loop's
/// (a failed poll or callback, cleared once a message is handled or partitions are assigned).
/// Written on the consume thread, read by status requests.
/// </summary>
internal sealed class KafkaConnectionStatus
{
    private volatile string? _connectionError;
    private volatile bool _credentialError;
    private volatile string? _consumeError;
    private volatile bool _contacted;

    /// <summary>Connected: a broker connection is up and the group or a fetch answered, and nothing is failing.</summary>
    public bool IsConnected(bool hasAssignment) => _connectionError is null && _consumeError is null && (hasAssignment || _contacted);

    /// <summary>The current problem; null when there is none.</summary>
    public string? Error => _connectionError ?? _consumeError;

    /// <summary>
    /// The client reported an error (e.g. "2/2 brokers are down"). A <paramref name="credential"/> error
    /// (refused login, untrusted certificate) is what the user must fix, so the "brokers are down" that
    /// follows it does not replace it; a broker connection coming up clears both.
    /// </summary>
    public void RecordClientError(string reason, bool credential = false)
    {
        if (credential || !_credentialError || _connectionError is null)
        {
            _connectionError = reason;
            _credentialError = credential;
        }
    }

    /// <summary>Polling or a callback failed.</summary>
    public void RecordConsumeError(string reason) => _consumeError = reason;

    /// <summary>A message was handled or partitions were assigned: the group and the fetch path work.</summary>
    public void RecordContact()
    {
        _contacted = true;
        _connectionError = null;
        _credentialError = false;
        _consumeError = null;
    }

    /// <summary>
    /// The client's periodic statistics (librdkafka's JSON): any broker connection in state UP
    /// clears a connection error; none up while some are known makes one.
    /// </summary>
    public void RecordStatistics(string json)
    {
        if (!TryCountBrokers(json, out var up, out var known) || known == 0)
        {
            return;
        }

        if (up > 0)
        {
            _connectionError = null;
            _credentialError = false;
        }
        else
        {
            _connectionError ??= $"no broker connection is up (0 of {known})";
        }
    }

    /// <summary>Counts the brokers in a statistics document, and those whose connection is UP.</summary>
    internal static bool TryCountBrokers(string json, out int up, out int known)
    {
        up = 0;
        known = 0;
        try
        {
            using var document = JsonDocument.Parse(json);
            if (!document.RootElement.TryGetProperty("brokers"u8, out var brokers) || brokers.ValueKind != JsonValueKind.Object)
            {
                return false;
            }

            foreach (var broker in brokers.EnumerateObject())
            {
                known++;
                if (broker.Value.TryGetProperty("state"u8, out var state) && state.ValueKind == JsonValueKind.String && state.ValueEquals("UP"u8))
                {
                    up++;
                }
            }

            return true;
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
