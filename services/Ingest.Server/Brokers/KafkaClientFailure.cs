using Confluent.Kafka;

namespace Ingest.Server.Brokers;

/// <summary>A client-wide error librdkafka reported (its code and text), e.g. a refused login; <see cref="KafkaClientError"/> puts it in words.</summary>
internal sealed record KafkaClientFailure(ErrorCode Code, string Reason);
