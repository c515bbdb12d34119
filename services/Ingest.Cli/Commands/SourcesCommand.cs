using System.CommandLine;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest sources</c>: each configured source of a running server, from <c>/stats</c>.</summary>
internal sealed class SourcesCommand : Command
{
    private const string Examples = """
        Examples:
          ingest sources
          ingest sources --url http://ingest:8080 --api-key "$INGEST_API_KEY"
        """;

    public SourcesCommand()
        : base("sources", "List the sources of a running Ingest server: connection, consumed, written, dead letters, lag, paused.\n\n" + Examples)
    {
        ServerSubcommand.Configure(this, null, null, ListAsync);
    }

    private static async Task ListAsync(IngestApiClient client, string? name, TextWriter output, CancellationToken ct)
    {
        var body = await client.SendAsync(HttpMethod.Get, "stats", null, ct).ConfigureAwait(false);
        using var document = JsonDocument.Parse(body);
        var rows = new List<IReadOnlyList<string>>();
        foreach (var source in document.RootElement.GetProperty("sources").EnumerateArray())
        {
            long? lag = null;
            foreach (var partition in source.GetProperty("partitions").EnumerateArray())
            {
                if (partition.TryGetProperty("lag", out var value) && value.ValueKind == JsonValueKind.Number)
                {
                    lag = (lag ?? 0) + value.GetInt64();
                }
            }

            var error = ServerSubcommand.Text(source, "error");
            rows.Add(
            [
                ServerSubcommand.Text(source, "name"),
                ServerSubcommand.Text(source, "kind"),
                ServerSubcommand.Flag(source, "connected") ? "connected" : "disconnected",
                ServerSubcommand.Text(source, "consumed"),
                ServerSubcommand.Text(source, "written"),
                ServerSubcommand.Text(source, "deadLetters"),
                lag?.ToString(System.Globalization.CultureInfo.InvariantCulture) ?? "?",
                ServerSubcommand.Flag(source, "paused") ? "paused" : "running",
                error,
            ]);
        }

        if (rows.Count == 0)
        {
            await output.WriteLineAsync("no sources configured (Ingest:Sources:Kafka and Ingest:Sources:RabbitMq in the server's settings)").ConfigureAwait(false);
            return;
        }

        await TextTable.WriteAsync(output, ["name", "kind", "connection", "consumed", "written", "dead letters", "lag", "state", "error"], rows).ConfigureAwait(false);
    }
}
