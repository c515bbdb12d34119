using System.CommandLine;

namespace Ingest.Cli.Server;

/// <summary>The options of every command that talks to a running server: where it is, its API key, how long to wait.</summary>
internal sealed class ServerOptions
{
    /// <summary>Read when --api-key is not given, so the key need not appear in the process list or shell history.</summary>
    public const string ApiKeyVariable = "INGEST_API_KEY";

    public const string DefaultUrl = "http://127.0.0.1:8080";

    public ServerOptions(int defaultTimeoutSeconds)
    {
        Timeout = new Option<int>("--timeout")
        {
            Description = "Seconds to wait for the answer.",
            HelpName = "SECONDS",
            DefaultValueFactory = _ => defaultTimeoutSeconds,
        };
        Commands.OptionValidation.Positive(Timeout);
    }

    public Option<Uri> Url { get; } = new("--url")
    {
        Description = "The server's base URL.",
        HelpName = "URL",
        DefaultValueFactory = _ => new Uri(DefaultUrl),
        CustomParser = result => Commands.OptionValidation.ParseUri(result, "http", "https"),
    };

    public Option<string?> ApiKey { get; } = new("--api-key")
    {
        Description = $"The server's API key, sent in {IngestApiClient.ApiKeyHeader} (default: ${ApiKeyVariable}).",
        HelpName = "KEY",
    };

    public Option<int> Timeout { get; }

    public void AddTo(Command command)
    {
        ArgumentNullException.ThrowIfNull(command);
        command.Add(Url);
        command.Add(ApiKey);
        command.Add(Timeout);
    }

    public IngestApiClient CreateClient(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return new IngestApiClient(
            parseResult.GetRequiredValue(Url),
            parseResult.GetValue(ApiKey) ?? Environment.GetEnvironmentVariable(ApiKeyVariable),
            TimeSpan.FromSeconds(parseResult.GetValue(Timeout)));
    }
}
