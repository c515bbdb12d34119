using System.Text.Json;

namespace Ingest.Server.Cluster;

/// <summary>
/// When an owner lease last had word from its group coordinator, from the consumer's periodic statistics
/// (librdkafka's JSON: <c>cgrp.state</c> is <c>up</c> while the coordinator is known and its connection is up).
/// The lease fences itself (stops the task) once that is older than <see cref="FenceAfter"/>: the coordinator
/// evicts a silent member after the whole session timeout, so a node cut off from it stops before another can
/// be assigned the lease. Statistics stop too when the client is stuck, which fences as well.
/// </summary>
internal sealed class CoordinatorContact(TimeSpan sessionTimeout, TimeProvider time)
{
    private long _lastContact = time.GetTimestamp();

    /// <summary>Two thirds of the session timeout: the margin left covers a statistics interval and scheduling.</summary>
    public TimeSpan FenceAfter { get; } = sessionTimeout * 2 / 3;

    /// <summary>How often the consumer should report statistics: often enough that a few missed ones still leave a margin.</summary>
    public TimeSpan StatisticsInterval { get; } = TimeSpan.FromMilliseconds(Math.Max(100, sessionTimeout.TotalMilliseconds / 10));

    /// <summary>Starts the clock again (a new consumer joins).</summary>
    public void Reset() => Interlocked.Exchange(ref _lastContact, time.GetTimestamp());

    /// <summary>Reads a statistics document; the coordinator counts as heard from when the group's state is <c>up</c>.</summary>
    public void Record(string statisticsJson)
    {
        if (IsGroupUp(statisticsJson))
        {
            Interlocked.Exchange(ref _lastContact, time.GetTimestamp());
        }
    }

    /// <summary>Whether nothing was heard from the coordinator for <see cref="FenceAfter"/>.</summary>
    public bool IsSilent => time.GetElapsedTime(Interlocked.Read(ref _lastContact)) >= FenceAfter;

    internal static bool IsGroupUp(string json)
    {
        try
        {
            using var document = JsonDocument.Parse(json);
            return document.RootElement.TryGetProperty("cgrp", out var group)
                && group.TryGetProperty("state", out var state)
                && state.ValueEquals("up");
        }
        catch (JsonException)
        {
            return false;
        }
    }
}
