using System.CommandLine;
using System.Globalization;
using System.Text;
using System.Text.Json;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary>What the commands that call a running server share: a subcommand with the server options, and reading or printing the JSON answers.</summary>
internal static class ServerSubcommand
{
    /// <summary>A subcommand with the server options and, when <paramref name="argumentName"/> is given, one required argument.</summary>
    public static Command Create(
        string name, string description, string? argumentName, string? argumentDescription,
        Func<IngestApiClient, string?, TextWriter, CancellationToken, Task> action) =>
        Configure(new Command(name, description), argumentName, argumentDescription, action);

    /// <summary>Gives <paramref name="command"/> the server options, the optional argument and <paramref name="action"/>.</summary>
    public static Command Configure(
        Command command, string? argumentName, string? argumentDescription, Func<IngestApiClient, string?, TextWriter, CancellationToken, Task> action) =>
        Configure(command, argumentName, argumentDescription, (client, value, _, output, ct) => action(client, value, output, ct));

    /// <summary>As above, for an action that also reads the command's own options from the parse result.</summary>
    public static Command Configure(
        Command command, string? argumentName, string? argumentDescription, Func<IngestApiClient, string?, ParseResult, TextWriter, CancellationToken, Task> action)
    {
        var server = new ServerOptions(defaultTimeoutSeconds: 30);
        Argument<string>? argument = null;
        if (argumentName is not null)
        {
            argument = new Argument<string>(argumentName) { Description = argumentDescription };
            command.Add(argument);
        }

        server.AddTo(command);
        command.SetAction(async (parseResult, cancellationToken) =>
        {
            using var client = server.CreateClient(parseResult);
            var value = argument is null ? null : parseResult.GetRequiredValue(argument);
            await action(client, value, parseResult, parseResult.InvocationConfiguration.Output, cancellationToken).ConfigureAwait(false);
            return ExitCodes.Success;
        });
        return command;
    }

    /// <summary>Prints a JSON answer indented.</summary>
    public static async Task WriteIndentedAsync(TextWriter output, byte[] body)
    {
        using var document = JsonDocument.Parse(body);
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer, new JsonWriterOptions { Indented = true }))
        {
            document.RootElement.WriteTo(writer);
        }

        await output.WriteLineAsync(Encoding.UTF8.GetString(buffer.ToArray())).ConfigureAwait(false);
    }

    /// <summary>A property as table text: strings as they are, numbers in invariant form, null or absent as empty.</summary>
    public static string Text(JsonElement item, string property) =>
        !item.TryGetProperty(property, out var value) || value.ValueKind == JsonValueKind.Null ? string.Empty
        : value.ValueKind == JsonValueKind.String ? value.GetString()!
        : value.ValueKind == JsonValueKind.Number ? value.GetInt64().ToString(CultureInfo.InvariantCulture)
        : value.GetRawText();

    public static bool Flag(JsonElement item, string property) => item.TryGetProperty(property, out var value) && value.ValueKind == JsonValueKind.True;
}
