using System.Net;
using Ingest.Server.Tests.Sources.Kafka;
using Ingest.Testing.Brokers;
using static Ingest.Server.Tests.Hosting.Http.ApiTestServer;
using static Ingest.Server.Tests.Sources.Kafka.KafkaTestKit;

namespace Ingest.Server.Tests.Sources;

/// <summary><c>POST /sources/{name}/reset</c> on the real server: the answer, and each refusal with its status and message.</summary>
[Collection(BrokerFixture.Collection)]
public sealed class SourceResetEndpointTests(BrokerFixture brokers)
{
    private const string Key = "reset-test-key-0123456789";

    [Fact]
    public async Task A_kafka_source_resets_and_answers_each_partition_moved_while_rabbitmq_unknown_names_bad_bodies_and_missing_keys_are_refused()
    {
        var kafka = await brokers.GetKafkaAsync();
        var topic = NewName("reset-api");
        await CreateTopicAsync(kafka.BootstrapServers, topic, 1);
        await ProduceAsync(kafka.BootstrapServers, topic, KafkaSourceTests.Sequence(0, 10));
        await using var server = await StartAsync(
            $"--Ingest:ApiKey={Key}",
            "--Ingest:Sources:Kafka:0:Name=orders",
            $"--Ingest:Sources:Kafka:0:BootstrapServers={kafka.BootstrapServers}",
            $"--Ingest:Sources:Kafka:0:Topics:0={topic}",
            $"--Ingest:Sources:Kafka:0:GroupId={NewName("group")}",
            // Refused before it would connect: the broker is unreachable on purpose.
            "--Ingest:Sources:RabbitMq:0:Name=events",
            "--Ingest:Sources:RabbitMq:0:Uri=amqp://guest:guest@127.0.0.1:1/",
            "--Ingest:Sources:RabbitMq:0:Queues:0=events");
        server.Client.DefaultRequestHeaders.Add("X-Api-Key", Key);
        await WaitUntilAsync(() => server.Store.LastEtag == 10, TimeSpan.FromSeconds(60), "every message stored");

        using (var response = await server.Client.PostAsync(Relative("/sources/orders/reset"), Json("""{"to":"earliest"}""")))
        {
            var answer = await ReadJsonAsync(response, HttpStatusCode.OK);
            Assert.Equal(
                $$"""{"source":"orders","to":"earliest","partitions":[{"topic":"{{topic}}","partition":0,"from":10,"to":0}]}""",
                answer.GetRawText());
        }

        await WaitUntilAsync(() => server.Store.LastEtag == 20, TimeSpan.FromSeconds(60), "every message applied again");

        using (var response = await server.Client.PostAsync(Relative("/sources/events/reset"), Json("""{"to":"earliest"}""")))
        {
            var problem = await ReadProblemAsync(response, HttpStatusCode.Conflict);
            Assert.Contains("The RabbitMQ source 'events' cannot be reset: a queue cannot rewind", problem, StringComparison.Ordinal);
        }

        using (var response = await server.Client.PostAsync(Relative("/sources/nowhere/reset"), Json("""{"to":"earliest"}""")))
        {
            Assert.Contains("There is no source 'nowhere' (configured: 'orders', 'events')", await ReadProblemAsync(response, HttpStatusCode.NotFound), StringComparison.Ordinal);
        }

        string[] badBodies =
        [
            "not json", "{}", """{"to":"yesterday"}""", """{"to":5}""", """{"to":{}}""", """{"to":{"t":{"x":1}}}""", """{"to":{"t":{"0":-1}}}""",
            "{\"to\":{\"" + topic + "\":{\"3\":0}}}", """{"to":{"other":{"0":0}}}""",
        ];
        string[] expected =
        [
            "The body is not JSON", "The body has no 'to'", "'to' is 'yesterday', neither 'earliest', 'latest' nor an ISO 8601 time", "'to' is number",
            "'to' names no topic", "'to.t' names partition 'x'", "'to.t.0' is -1; an offset is a whole number from 0",
            $"topic '{topic}' has partitions 0 to 0; there is no partition 3", $"the source consumes '{topic}'; 'other' is not one of them",
        ];
        for (var i = 0; i < badBodies.Length; i++)
        {
            using var response = await server.Client.PostAsync(Relative("/sources/orders/reset"), Json(badBodies[i]));
            var problem = await ReadProblemAsync(response, HttpStatusCode.BadRequest);
            Assert.Contains(expected[i], problem, StringComparison.Ordinal);
            if (i < 7)
            {
                Assert.Contains("""the body is {"to": "earliest" | "latest" | "<ISO 8601 time""", problem, StringComparison.Ordinal);
            }
        }

        using var keyless = new HttpClient { BaseAddress = server.Client.BaseAddress };
        using (var response = await keyless.PostAsync(Relative("/sources/orders/reset"), Json("""{"to":"earliest"}""")))
        {
            Assert.Equal(HttpStatusCode.Unauthorized, response.StatusCode);
        }

        Assert.Equal(20, server.Store.LastEtag);
    }
}
