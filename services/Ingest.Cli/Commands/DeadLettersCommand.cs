using System.CommandLine;
using System.Globalization;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest dead-letters list|show|replay|delete</c>: the messages a running server could not store as documents.</summary>
internal sealed class DeadLettersCommand : Command
{
    private const string Examples = """
        Examples:
          ingest dead-letters list
          ingest dead-letters show 42
          ingest dead-letters replay 42
          ingest dead-letters delete 42
        """;

    private const string IdDescription = "The dead letter's id (the first column of 'ingest dead-letters list').";

    public DeadLettersCommand()
        : base("dead-letters", "List, inspect, replay or delete the dead letters of a running Ingest server.\n\n" + Examples)
    {
        Add(ServerSubcommand.Create("list", "List every dead letter: id, source, position, when, why.", null, null, ListAsync));
        Add(ServerSubcommand.Create("show", "Print a dead letter with its message (JSON).", "id", IdDescription, ShowAsync));
        Add(ServerSubcommand.Create("replay", "Map the stored message again with its source's rules; if it now maps, store it and delete the dead letter.", "id", IdDescription, ReplayAsync));
        Add(ServerSubcommand.Create("delete", "Delete a dead letter.", "id", IdDescription, DeleteAsync));
    }

    private static async Task ListAsync(IngestApiClient client, string? id, TextWriter output, CancellationToken ct)
    {
        var rows = new List<IReadOnlyList<string>>();
        long? start = 0;
        while (start is { } from)
        {
            var body = await client.SendAsync(HttpMethod.Get, $"dead-letters?start={from.ToString(CultureInfo.InvariantCulture)}&pageSize=500", null, ct).ConfigureAwait(false);
            using var document = JsonDocument.Parse(body);
            foreach (var item in document.RootElement.GetProperty("items").EnumerateArray())
            {
                rows.Add(
                [
                    ServerSubcommand.Text(item, "id"),
                    ServerSubcommand.Text(item, "source"),
                    $"{ServerSubcommand.Text(item, "partition")}@{ServerSubcommand.Text(item, "offset")}",
                    ServerSubcommand.Text(item, "stored"),
                    ServerSubcommand.Text(item, "reason"),
                ]);
            }

            start = document.RootElement.TryGetProperty("next", out var next) && next.ValueKind == JsonValueKind.Number ? next.GetInt64() : null;
        }

        if (rows.Count == 0)
        {
            await output.WriteLineAsync("no dead letters").ConfigureAwait(false);
            return;
        }

        await TextTable.WriteAsync(output, ["id", "source", "position", "stored", "reason"], rows).ConfigureAwait(false);
    }

    private static async Task ShowAsync(IngestApiClient client, string? id, TextWriter output, CancellationToken ct) =>
        await ServerSubcommand.WriteIndentedAsync(output, await client.SendAsync(HttpMethod.Get, Path(id!), null, ct).ConfigureAwait(false)).ConfigureAwait(false);

    private static async Task ReplayAsync(IngestApiClient client, string? id, TextWriter output, CancellationToken ct)
    {
        using var empty = new ByteArrayContent([]);
        await client.SendAsync(HttpMethod.Post, Path(id!) + "/replay", empty, ct).ConfigureAwait(false);
        await output.WriteLineAsync($"dead letter {id} replayed: stored as a document and removed").ConfigureAwait(false);
    }

    private static async Task DeleteAsync(IngestApiClient client, string? id, TextWriter output, CancellationToken ct)
    {
        await client.SendAsync(HttpMethod.Delete, Path(id!), null, ct).ConfigureAwait(false);
        await output.WriteLineAsync($"dead letter {id} deleted").ConfigureAwait(false);
    }

    private static string Path(string id) => "dead-letters/" + Uri.EscapeDataString(id);
}
