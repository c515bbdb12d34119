using Ingest.Testing.Brokers;

namespace Ingest.Cli.Tests.Support;

/// <summary>Classes in this collection share one Kafka and one RabbitMQ for the test run.</summary>
[CollectionDefinition(BrokerFixture.Collection)]
public sealed class BrokersCollection : ICollectionFixture<BrokerFixture>;
