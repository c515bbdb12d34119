using Ingest.Testing.Brokers;

namespace Ingest.Server.Tests.Brokers;

/// <summary>Classes in this collection share one Kafka and one RabbitMQ for the test run.</summary>
[CollectionDefinition(BrokerFixture.Collection)]
public sealed class BrokersCollection : ICollectionFixture<BrokerFixture>;
