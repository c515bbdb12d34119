namespace Ingest.Server.Scripting;

/// <summary>
/// A transform failed for one input (an ETL task's document or a source's message): it threw, timed
/// out, exceeded its memory, or returned something it may not.
/// </summary>
public sealed class ScriptException : Exception
{
    public ScriptException()
    {
    }

    public ScriptException(string message)
        : base(message)
    {
    }

    public ScriptException(string message, Exception innerException)
        : base(message, innerException)
    {
    }
}
