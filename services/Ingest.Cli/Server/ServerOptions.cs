using System.CommandLine;

namespace Ingest.Cli.Server;

/// <summary>The options of every command that talks to a running server: where it is, which CA to trust for its certificate, its API key, how long to wait.</summary>
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

    public Option<string?> Ca { get; } = new("--ca")
    {
        Description = $"For an https:// URL: trust only the CA certificate(s) in this PEM file, a private CA that signed the server's certificate (default: ${ServerTrust.CaVariable}; without either, the machine's trusted roots).",
        HelpName = "PEM_FILE",
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
        command.Add(Ca);
        command.Add(ApiKey);
        command.Add(Timeout);
    }

    public IngestApiClient CreateClient(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return new IngestApiClient(
            parseResult.GetRequiredValue(Url),
            parseResult.GetValue(ApiKey) ?? Environment.GetEnvironmentVariable(ApiKeyVariable),
            TimeSpan.FromSeconds(parseResult.GetValue(Timeout)),
            Trust(parseResult));
    }

    /// <summary>The certificates to accept from the server: --ca, else $INGEST_CA, else the machine's roots.</summary>
    public ServerTrust Trust(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return ServerTrust.Load(parseResult.GetValue(Ca) ?? Environment.GetEnvironmentVariable(ServerTrust.CaVariable));
    }
}
