using System.CommandLine;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest indexes list|show|define|reset|delete</c>: the indexes of a running server, static and automatic, map and map-reduce.</summary>
internal sealed class IndexesCommand : Command
{
    private const string Examples = """
        Examples:
          ingest indexes list
          ingest indexes show Auto/Orders/ByCustomerAndTotal
          ingest indexes show Orders/RevenuePerHour --summary
          ingest indexes define Orders/ByCustomer --file by-customer.json
          ingest indexes define Orders/RevenuePerHour --collection Orders \
            --field Status:keyword --field Total:number --field OrderedAt:datetime \
            --group-by Status --group-by Hour=OrderedAt:1h --aggregate Orders=count --aggregate 'Revenue=sum(Total)'
          ingest indexes reset Orders/ByCustomer
          ingest indexes delete Auto/Orders/ByTotal
        """;

    public IndexesCommand()
        : base("indexes", "List, inspect, rebuild or delete the indexes of a running Ingest server.\n\n" + Examples)
    {
        Add(Sub("list", "List every index: automatic or not, state, staleness, entries.", withName: false, ListAsync));
        Add(Show());
        Add(IndexDefineCommand.Create());
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
                ServerSubcommand.Flag(item, "automatic") ? "auto" : ServerSubcommand.Flag(item, "mapReduce") ? "map-reduce" : "static",
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

    private static Command Show()
    {
        var summary = new Option<bool>("--summary") { Description = "Print the definition as lines (collections, fields, and a map-reduce index's group keys and aggregates) with the state, instead of the JSON." };
        var show = new Command("show", "Print an index's definition, state and counters (JSON; --summary for lines).");
        show.Add(summary);
        return ServerSubcommand.Configure(show, "name", "The index's name, e.g. Orders/ByCustomer.", (client, name, parseResult, output, ct) => ShowAsync(client, name!, parseResult.GetValue(summary), output, ct));
    }

    private static async Task ShowAsync(IngestApiClient client, string name, bool summary, TextWriter output, CancellationToken ct)
    {
        var body = await client.SendAsync(HttpMethod.Get, IndexPath(name), null, ct).ConfigureAwait(false);
        if (!summary)
        {
            await ServerSubcommand.WriteIndentedAsync(output, body).ConfigureAwait(false);
            return;
        }

        using var document = JsonDocument.Parse(body);
        var root = document.RootElement;
        var definition = root.GetProperty("definition");
        var kind = definition.TryGetProperty("reduce", out var reduce) && reduce.ValueKind == JsonValueKind.Object ? "map-reduce index" : "index";
        await output.WriteLineAsync($"{kind} {ServerSubcommand.Text(root, "name")}: {ServerSubcommand.Text(root, "state")}, {(ServerSubcommand.Flag(root, "stale") ? "stale" : "current")}, {ServerSubcommand.Text(root, "entries")} entries").ConfigureAwait(false);
        foreach (var line in IndexDefinitionView.Lines(definition))
        {
            await output.WriteLineAsync("  " + line).ConfigureAwait(false);
        }
    }

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
