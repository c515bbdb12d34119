using System.CommandLine;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest indexes list|show|reset|delete</c>: the indexes of a running server, static and automatic.</summary>
internal sealed class IndexesCommand : Command
{
    private const string Examples = """
        Examples:
          ingest indexes list
          ingest indexes show Auto/Orders/ByCustomerAndTotal
          ingest indexes reset Orders/ByCustomer
          ingest indexes delete Auto/Orders/ByTotal
        """;

    public IndexesCommand()
        : base("indexes", "List, inspect, rebuild or delete the indexes of a running Ingest server.\n\n" + Examples)
    {
        Add(Sub("list", "List every index: automatic or not, state, staleness, entries.", withName: false, ListAsync));
        Add(Sub("show", "Print an index's definition, state and counters (JSON).", withName: true, ShowAsync));
        Add(Sub("reset", "Rebuild an index from the documents, side by side; queries use the old build until the new one caught up.", withName: true, ResetAsync));
        Add(Sub("delete", "Delete an index (an automatic one comes back when a query needs it).", withName: true, DeleteAsync));
    }

    /// <summary><c>indexes/&lt;name&gt;</c> with each segment escaped and the '/'s kept (the server takes the rest of the path).</summary>
    internal static string IndexPath(string name) => "indexes/" + string.Join('/', name.Split('/').Select(Uri.EscapeDataString));

    private static Command Sub(string name, string description, bool withName, Func<IngestApiClient, string?, TextWriter, CancellationToken, Task> action) =>
        ServerSubcommand.Create(name, description, withName ? "name" : null, "The index's name, e.g. Orders/ByCustomer.", action);

    private static async Task ListAsync(IngestApiClient client, string? name, TextWriter output, CancellationToken ct)
    {
        var body = await client.SendAsync(HttpMethod.Get, "indexes", null, ct).ConfigureAwait(false);
        using var document = JsonDocument.Parse(body);
        var rows = new List<IReadOnlyList<string>>();
        foreach (var item in document.RootElement.GetProperty("items").EnumerateArray())
        {
            rows.Add(
            [
                ServerSubcommand.Text(item, "name"),
                ServerSubcommand.Flag(item, "automatic") ? "auto" : "static",
                ServerSubcommand.Text(item, "state"),
                ServerSubcommand.Flag(item, "stale") ? "stale" : "current",
                ServerSubcommand.Text(item, "entries"),
                ServerSubcommand.Text(item, "lastIndexedEtag"),
            ]);
        }

        if (rows.Count == 0)
        {
            await output.WriteLineAsync("no indexes (a query on a collection makes an automatic one; PUT /indexes/{name} defines one)").ConfigureAwait(false);
            return;
        }

        await TextTable.WriteAsync(output, ["name", "kind", "state", "freshness", "entries", "last etag"], rows).ConfigureAwait(false);
    }

    private static async Task ShowAsync(IngestApiClient client, string? name, TextWriter output, CancellationToken ct) =>
        await ServerSubcommand.WriteIndentedAsync(output, await client.SendAsync(HttpMethod.Get, IndexPath(name!), null, ct).ConfigureAwait(false)).ConfigureAwait(false);

    private static async Task ResetAsync(IngestApiClient client, string? name, TextWriter output, CancellationToken ct)
    {
        using var empty = new ByteArrayContent([]);
        await client.SendAsync(HttpMethod.Post, IndexPath(name!) + "/reset", empty, ct).ConfigureAwait(false);
        await output.WriteLineAsync($"index '{name}' is being rebuilt side by side; queries use the current build until the new one caught up").ConfigureAwait(false);
    }

    private static async Task DeleteAsync(IngestApiClient client, string? name, TextWriter output, CancellationToken ct)
    {
        await client.SendAsync(HttpMethod.Delete, IndexPath(name!), null, ct).ConfigureAwait(false);
        await output.WriteLineAsync($"index '{name}' deleted").ConfigureAwait(false);
    }
}
