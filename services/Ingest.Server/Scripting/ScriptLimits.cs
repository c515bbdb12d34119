namespace Ingest.Server.Scripting;

/// <summary>What one run of a transform (one document or one message) may take.</summary>
internal readonly record struct ScriptLimits(TimeSpan Timeout, long MemoryBytes)
{
    public const int MaxTimeoutMs = 60_000;
    public const long MinMemoryBytes = 1024 * 1024;
    public const long MaxMemoryBytes = 4L * 1024 * 1024 * 1024;

    /// <summary>The limits from settings; problems are added to <paramref name="errors"/>, each naming its setting under <paramref name="path"/>.</summary>
    public static void Validate(int timeoutMs, long memoryBytes, string path, List<string> errors)
    {
        if (timeoutMs is < 1 or > MaxTimeoutMs)
        {
            errors.Add($"{path}:ScriptTimeoutMs must be between 1 and {MaxTimeoutMs} (was {timeoutMs}).");
        }

        if (memoryBytes is < MinMemoryBytes or > MaxMemoryBytes)
        {
            errors.Add($"{path}:ScriptMemoryBytes must be between {MinMemoryBytes} (1 MiB) and {MaxMemoryBytes} (was {memoryBytes}).");
        }
    }
}
