using System.CommandLine;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest sources</c>: each configured source of a running server, from <c>/stats</c>; <c>ingest sources reset</c>: reprocessing.</summary>
internal sealed class SourcesCommand : Command
{
    private const string Examples = """
        Examples:
          ingest sources
          ingest sources --url http://ingest:8080 --api-key "$INGEST_API_KEY"
          ingest sources reset orders --to earliest
        """;

    private const string ResetExamples = """
        Examples:
          ingest sources reset orders --to earliest
          ingest sources reset orders --to latest
          ingest sources reset orders --to 2026-11-26T08:00:00Z
          ingest sources reset orders --to orders:0=1200,orders:2=980
        """;

    public SourcesCommand()
        : base("sources", "List the sources of a running Ingest server: connection, consumed, written, dead letters, lag, paused.\n\n" + Examples)
    {
        ServerSubcommand.Configure(this, null, null, ListAsync);
        Add(CreateReset());
    }

    /// <summary>
    /// <c>ingest sources reset NAME --to ...</c>: the server writes what it consumed so far, moves the
    /// source's stored positions in one transaction and consumes from there (Kafka sources only).
    /// </summary>
    private static Command CreateReset()
    {
        var to = new Option<string>("--to")
        {
            Description = $"Where the source resumes: {ResetTargetText.Accepted}. Partitions not named keep their positions.",
            HelpName = "TARGET",
            Required = true,
        };
        to.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<string>() is { } text && ResetTargetText.ToBody(text, out var error) is null)
            {
                result.AddError(error!);
            }
        });
        var reset = new Command(
            "reset",
            "Reprocess (or skip) a Kafka source's messages: what it consumed so far is written first, then its stored positions move "
            + "to the target in one transaction and consuming resumes there. Messages from there on are applied again. "
            + "RabbitMQ sources cannot be reset (a queue cannot rewind).\n\n" + ResetExamples);
        reset.Add(to);
        return ServerSubcommand.Configure(
            reset,
            "name",
            "The source's name (the first column of 'ingest sources').",
            (client, name, parseResult, output, ct) => ResetAsync(client, name!, ResetTargetText.ToBody(parseResult.GetRequiredValue(to), out _)!, output, ct));
    }

    private static async Task ResetAsync(IngestApiClient client, string name, byte[] body, TextWriter output, CancellationToken ct)
    {
        using var content = new ByteArrayContent(body);
        content.Headers.ContentType = new System.Net.Http.Headers.MediaTypeHeaderValue("application/json");
        var answer = await client.SendAsync(HttpMethod.Post, "sources/" + Uri.EscapeDataString(name) + "/reset", content, ct).ConfigureAwait(false);
        using var document = JsonDocument.Parse(answer);
        var root = document.RootElement;
        var rows = new List<IReadOnlyList<string>>();
        foreach (var partition in root.GetProperty("partitions").EnumerateArray())
        {
            var from = ServerSubcommand.Text(partition, "from");
            rows.Add(
            [
                ServerSubcommand.Text(partition, "topic"),
                ServerSubcommand.Text(partition, "partition"),
                from.Length == 0 ? "none" : from,
                ServerSubcommand.Text(partition, "to"),
            ]);
        }

        await output.WriteLineAsync(
            $"source '{ServerSubcommand.Text(root, "source")}' reset to {ServerSubcommand.Text(root, "to")}: "
            + "what it had consumed is written, and it now consumes from these offsets (messages from there on are applied again)").ConfigureAwait(false);
        await TextTable.WriteAsync(output, ["topic", "partition", "from", "to"], rows).ConfigureAwait(false);
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
