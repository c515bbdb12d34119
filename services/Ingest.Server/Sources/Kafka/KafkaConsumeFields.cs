using Confluent.Kafka;

namespace Ingest.Server.Sources.Kafka;

/// <summary>
/// Which fields Confluent fills in each consume result of a source's consumer. By default it decodes the
/// record's topic name into a new string (about 110 bytes for a 45-character name) and reads its timestamp
/// for every record; the source never reads the timestamp, and with one topic (no pattern) it knows the
/// topic already. Headers stay: the mapping reads <c>ingest-*</c> and trace headers, and a dead letter
/// keeps them all. Whoever reads a result's topic falls back to <see cref="OnlyTopic"/>.
/// </summary>
internal static class KafkaConsumeFields
{
    /// <summary>The one topic a source reads, when it subscribes to exactly one name (a <c>^</c> pattern can match several); else null.</summary>
    public static string? OnlyTopic(IReadOnlyList<string> topics) =>
        topics is [var topic] && !topic.StartsWith('^') ? topic : null;

    /// <summary>
    /// Sets the fields: headers, and topic names only when the source may read more than one topic. Set after
    /// the user's settings: a source that lost its headers or topics would map records wrongly.
    /// </summary>
    public static void Apply(ConsumerConfig config, string? onlyTopic) =>
        config.ConsumeResultFields = onlyTopic is null ? "headers,topic" : "headers";

    /// <summary>The topic of <paramref name="result"/>: its own, or the source's only one when results carry none.</summary>
    public static string TopicOf(ConsumeResult<byte[]?, byte[]?> result, string? onlyTopic) =>
        result.Topic ?? onlyTopic ?? throw new InvalidOperationException("A consume result without a topic, from a consumer that reads more than one.");
}
