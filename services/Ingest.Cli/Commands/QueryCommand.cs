using System.CommandLine;
using System.Text;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest query "from Orders where ..."</c>: runs a query on a running server and prints the results.</summary>
internal sealed class QueryCommand : Command
{
    private const string Examples = """
        Examples:
          ingest query "from Orders where Status = 'shipped' order by Total desc limit 10"
          ingest query "from Orders where Total between \$min and \$max" --param min=10 --param max=100
          ingest query "from Orders group by Status select Status, count(), sum(Total)" --format csv
          ingest query "from index 'Orders/ByCustomer' where startsWith(Customer, 'acme')" --wait 5s --format json
        A --param value is JSON when it reads as JSON (10, true, "10", ["a","b"]), otherwise a string (shipped).
        """;

    private readonly Argument<string> _query = new("query")
    {
        Description = "The query, e.g. \"from Orders where Total > 10\" (quote it for the shell).",
    };

    private readonly Option<string[]> _parameters = new("--param", "-p")
    {
        Description = "A query parameter NAME=VALUE for $NAME; repeat for more.",
        HelpName = "NAME=VALUE",
        Arity = ArgumentArity.ZeroOrMore,
        AllowMultipleArgumentsPerToken = false,
    };

    private readonly Option<string> _format = new Option<string>("--format", "-f")
    {
        Description = "table (documents as id and JSON), json (the server's answer as is) or csv.",
        DefaultValueFactory = _ => "table",
    }.AcceptOnlyFromAmong("table", "json", "csv");

    private readonly Option<string?> _wait = new("--wait")
    {
        Description = "Wait up to this long for the index to catch up with the documents stored when the query starts (500ms, 5s, 2m).",
        HelpName = "DURATION",
    };

    private readonly Option<string?> _continuation = new("--continuation")
    {
        Description = "The token a previous page printed, for the next page.",
        HelpName = "TOKEN",
    };

    private readonly ServerOptions _server = new(defaultTimeoutSeconds: 100);

    public QueryCommand()
        : base("query", "Run a query on a running Ingest server and print the results.\n\n" + Examples)
    {
        Add(_query);
        Add(_parameters);
        Add(_format);
        Add(_wait);
        Add(_continuation);
        _server.AddTo(this);
        _parameters.Validators.Add(result =>
        {
            foreach (var token in result.Tokens)
            {
                if (token.Value.IndexOf('=', StringComparison.Ordinal) <= 0)
                {
                    result.AddError($"--param '{token.Value}' is not NAME=VALUE");
                }
            }
        });
        SetAction(RunAsync);
    }

    /// <summary>The request body: <c>{"query", "parameters", "waitForNonStale", "continuation"}</c>.</summary>
    internal static byte[] RequestBody(string query, IEnumerable<string> parameters, string? wait, string? continuation)
    {
        using var buffer = new MemoryStream();
        using (var writer = new Utf8JsonWriter(buffer))
        {
            writer.WriteStartObject();
            writer.WriteString("query", query);
            writer.WriteStartObject("parameters");
            foreach (var parameter in parameters)
            {
                var split = parameter.IndexOf('=', StringComparison.Ordinal);
                writer.WritePropertyName(parameter[..split]);
                WriteParameterValue(writer, parameter[(split + 1)..]);
            }

            writer.WriteEndObject();
            if (wait is not null)
            {
                writer.WriteString("waitForNonStale", wait);
            }

            if (continuation is not null)
            {
                writer.WriteString("continuation", continuation);
            }

            writer.WriteEndObject();
        }

        return buffer.ToArray();
    }

    private static void WriteParameterValue(Utf8JsonWriter writer, string text)
    {
        try
        {
            using var json = JsonDocument.Parse(text);
            json.RootElement.WriteTo(writer);
        }
        catch (JsonException)
        {
            writer.WriteStringValue(text);
        }
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var body = RequestBody(
            parseResult.GetRequiredValue(_query),
            parseResult.GetValue(_parameters) ?? [],
            parseResult.GetValue(_wait),
            parseResult.GetValue(_continuation));
        using var client = _server.CreateClient(parseResult);
        using var content = new ByteArrayContent(body);
        content.Headers.ContentType = new("application/json");
        var answer = await client.SendAsync(HttpMethod.Post, "queries", content, cancellationToken).ConfigureAwait(false);

        var output = parseResult.InvocationConfiguration.Output;
        var format = parseResult.GetRequiredValue(_format);
        if (format == "json")
        {
            await output.WriteLineAsync(Encoding.UTF8.GetString(answer)).ConfigureAwait(false);
            return ExitCodes.Success;
        }

        var view = QueryResponseView.Parse(answer);
        if (format == "csv")
        {
            await CsvWriter.WriteAsync(output, view.Columns, view.Rows).ConfigureAwait(false);
            await parseResult.InvocationConfiguration.Error.WriteLineAsync(view.Summary()).ConfigureAwait(false);
            return ExitCodes.Success;
        }

        if (view.Columns.Count > 0)
        {
            await TextTable.WriteAsync(output, view.Columns, view.Rows).ConfigureAwait(false);
            await output.WriteLineAsync().ConfigureAwait(false);
        }

        await output.WriteLineAsync(view.Summary()).ConfigureAwait(false);
        return ExitCodes.Success;
    }
}
