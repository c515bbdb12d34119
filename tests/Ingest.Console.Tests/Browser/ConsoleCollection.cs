using Ingest.Testing.Brokers;

namespace Ingest.Console.Tests.Browser;

/// <summary>Every browser test shares one Chromium and the run's brokers, and runs one at a time (2 cores).</summary>
[CollectionDefinition(Name)]
public sealed class ConsoleCollection : ICollectionFixture<ChromiumBrowser>, ICollectionFixture<BrokerFixture>
{
    public const string Name = "console";
}
