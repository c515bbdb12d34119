namespace Ingest.Contracts.Messages;

/// <summary>The wire names of <see cref="IngestOperation"/> values, as carried in the <see cref="IngestHeaders.Operation"/> header.</summary>
public static class IngestOperations
{
    public const string PutName = "put";
    public const string DeleteName = "delete";

    /// <summary>The header value for an operation.</summary>
    public static string ToWireName(IngestOperation operation) => operation switch
    {
        IngestOperation.Put => PutName,
        IngestOperation.Delete => DeleteName,
        _ => throw new ArgumentOutOfRangeException(nameof(operation), operation, "Unknown operation."),
    };

    /// <summary>
    /// Parses a header value (UTF-8, ASCII case-insensitive). An absent or empty header means put;
    /// any other unknown name is rejected, so a publisher's typo becomes a dead letter rather than a
    /// silent put.
    /// </summary>
    public static bool TryParse(ReadOnlySpan<byte> utf8Value, out IngestOperation operation)
    {
        if (utf8Value.IsEmpty || System.Text.Ascii.EqualsIgnoreCase(utf8Value, "put"u8))
        {
            operation = IngestOperation.Put;
            return true;
        }

        if (System.Text.Ascii.EqualsIgnoreCase(utf8Value, "delete"u8))
        {
            operation = IngestOperation.Delete;
            return true;
        }

        operation = default;
        return false;
    }
}
