using System.CommandLine;
using System.Net.Http.Headers;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest indexes define NAME</c>: creates or changes a static index (<c>PUT /indexes/{name}</c>) from a JSON file or
/// from flags; with <c>--group-by</c>/<c>--aggregate</c> (or a <c>reduce</c> in the file) a map-reduce index. Prints the
/// server's outcome (created, unchanged, rebuilding side by side) and the definition as it was sent.
/// </summary>
internal static class IndexDefineCommand
{
    public static Command Create()
    {
        var file = new Option<FileInfo?>("--file") { Description = "The definition as JSON, as PUT /indexes/{name} takes it (docs/indexes.md).", HelpName = "PATH" };
        var collections = new Option<string[]>("--collection") { Description = "A collection the index covers (repeat for several).", HelpName = "NAME" };
        var fields = new Option<string[]>("--field") { Description = "A field, Name:type or Name:type:path (types: keyword, text, number, datetime, bool); repeat.", HelpName = "FIELD" };
        var groupBy = new Option<string[]>("--group-by") { Description = "A map-reduce group key: Field, Name=Field, or Name=Field:interval for a time bucket (250ms, 5m, 1h, 1d, 1w); repeat.", HelpName = "KEY" };
        var aggregates = new Option<string[]>("--aggregate") { Description = "A map-reduce aggregate: Name=count or Name=function(Field) (count, sum, avg, min, max, countDistinct); repeat.", HelpName = "AGGREGATE" };
        var command = new Command(
            "define",
            "Create or change a static index from a JSON file (--file) or from flags; --group-by and --aggregate make it a map-reduce index. "
            + "A changed definition rebuilds side by side: queries use the old build until the new one caught up.");
        command.Add(file);
        command.Add(collections);
        command.Add(fields);
        command.Add(groupBy);
        command.Add(aggregates);
        command.Validators.Add(result =>
        {
            var hasFile = result.GetResult(file) is not null;
            var hasFlags = result.GetResult(collections) is not null || result.GetResult(fields) is not null || result.GetResult(groupBy) is not null || result.GetResult(aggregates) is not null;
            if (hasFile && hasFlags)
            {
                result.AddError("give the definition either as --file or as --collection/--field/--group-by/--aggregate, not both");
            }
            else if (!hasFile && !hasFlags)
            {
                result.AddError("give the definition: --file definition.json, or --collection and --field (with --group-by and --aggregate for a map-reduce index)");
            }
            else if (hasFlags && IndexDefinitionFlags.ToBody(Values(result.GetValue(collections)), Values(result.GetValue(fields)), Values(result.GetValue(groupBy)), Values(result.GetValue(aggregates)), out var error) is null)
            {
                result.AddError(error!);
            }
        });

        return ServerSubcommand.Configure(command, "name", "The index's name, e.g. Orders/RevenuePerHour.", (client, name, parseResult, output, ct) =>
        {
            var path = parseResult.GetValue(file);
            var body = path is not null
                ? Read(path)
                : IndexDefinitionFlags.ToBody(Values(parseResult.GetValue(collections)), Values(parseResult.GetValue(fields)), Values(parseResult.GetValue(groupBy)), Values(parseResult.GetValue(aggregates)), out _)!;
            return DefineAsync(client, name!, body, output, ct);
        });
    }

    private static async Task DefineAsync(IngestApiClient client, string name, byte[] body, TextWriter output, CancellationToken ct)
    {
        using var content = new ByteArrayContent(body);
        content.Headers.ContentType = new MediaTypeHeaderValue("application/json");
        var answer = await client.SendAsync(HttpMethod.Put, IndexesCommand.IndexPath(name), content, ct).ConfigureAwait(false);
        using var response = JsonDocument.Parse(answer);
        var outcome = ServerSubcommand.Text(response.RootElement, "outcome");
        await output.WriteLineAsync(outcome switch
        {
            "created" => $"index '{name}' created",
            "unchanged" => $"index '{name}' unchanged (the same definition)",
            "rebuilding" => $"index '{name}' changed: it is being rebuilt side by side; queries use the current build until the new one caught up",
            _ => $"index '{name}': {outcome}",
        }).ConfigureAwait(false);
        using var definition = JsonDocument.Parse(body);
        foreach (var line in IndexDefinitionView.Lines(definition.RootElement))
        {
            await output.WriteLineAsync("  " + line).ConfigureAwait(false);
        }
    }

    /// <summary>The file's bytes, which must be a JSON object (the server says what is wrong inside it).</summary>
    private static byte[] Read(FileInfo path)
    {
        byte[] bytes;
        try
        {
            bytes = File.ReadAllBytes(path.FullName);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"cannot read the definition file {path.FullName}: {ex.Message}", ex);
        }

        try
        {
            using var document = JsonDocument.Parse(bytes);
            if (document.RootElement.ValueKind != JsonValueKind.Object)
            {
                throw new CommandFailedException(ExitCodes.Usage, $"the definition file {path.FullName} holds a JSON {document.RootElement.ValueKind.ToString().ToLowerInvariant()}, not an object like {{\"collections\":[\"Orders\"],\"fields\":[...]}}");
            }
        }
        catch (JsonException ex)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"the definition file {path.FullName} is not JSON: {ex.Message}", ex);
        }

        return bytes;
    }

    private static string[] Values(string[]? values) => values ?? [];
}
