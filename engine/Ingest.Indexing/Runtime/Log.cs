using Microsoft.Extensions.Logging;

namespace Ingest.Indexing.Runtime;

internal static partial class Log
{
    [LoggerMessage(EventId = 1100, Level = LogLevel.Error, Message = "Index '{Index}' stopped: {Problem}")]
    public static partial void IndexErrored(ILogger logger, string index, string problem, Exception exception);

    [LoggerMessage(EventId = 1101, Level = LogLevel.Debug, Message = "Index '{Index}' committed {Changes} changes through etag {Etag}, batch memory {MemoryBytes} bytes")]
    public static partial void BatchCommitted(ILogger logger, string index, int changes, long etag, long memoryBytes);

    [LoggerMessage(EventId = 1102, Level = LogLevel.Information, Message = "Index '{Index}' rebuilt side by side (generation {Generation}) and swapped in")]
    public static partial void IndexSwapped(ILogger logger, string index, long generation);

    [LoggerMessage(EventId = 1104, Level = LogLevel.Warning, Message = "Index '{Index}' cannot write, its disk is full; it goes on by itself once there is room: {Problem}")]
    public static partial void IndexWaitingForSpace(ILogger logger, string index, string problem);

    [LoggerMessage(EventId = 1103, Level = LogLevel.Warning, Message = "Removed leftover index directory '{Directory}' that the catalog does not name")]
    public static partial void LeftoverRemoved(ILogger logger, string directory);

    [LoggerMessage(EventId = 1105, Level = LogLevel.Warning, Message = "Index '{Index}' has storage format {Format}; rebuilding it side by side in format {CurrentFormat}, queries use the old build until the new one has caught up")]
    public static partial void FormatRebuild(ILogger logger, string index, int format, int currentFormat);
}
