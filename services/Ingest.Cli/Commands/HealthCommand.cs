using System.CommandLine;
using System.Net;
using Ingest.Cli.Health;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest health</c>: exit 0 when the server reports itself healthy, 1 in every other case.</summary>
internal sealed class HealthCommand : Command
{
    /// <summary>Read when --api-key is not given, so the key need not appear in the process list or shell history.</summary>
    public const string ApiKeyVariable = "INGEST_API_KEY";

    private readonly Option<Uri> _url = new("--url")
    {
        Description = "The server's base URL.",
        HelpName = "URL",
        DefaultValueFactory = _ => new Uri("http://127.0.0.1:8080"),
        CustomParser = result => OptionValidation.ParseUri(result, "http", "https"),
    };

    private readonly Option<string?> _apiKey = new("--api-key")
    {
        Description = $"The server's API key, sent in {HealthProbe.ApiKeyHeader} (default: ${ApiKeyVariable}).",
        HelpName = "KEY",
    };

    private readonly Option<int> _timeout = new Option<int>("--timeout")
    {
        Description = "Seconds to wait for the answer.",
        HelpName = "SECONDS",
        DefaultValueFactory = _ => 5,
    }.Positive();

    public HealthCommand()
        : base("health", "Check a running Ingest server: print its health and exit 0 if it is healthy, 1 otherwise.")
    {
        Add(_url);
        Add(_apiKey);
        Add(_timeout);
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var url = HealthProbe.HealthUrl(parseResult.GetRequiredValue(_url));
        var apiKey = parseResult.GetValue(_apiKey) ?? Environment.GetEnvironmentVariable(ApiKeyVariable);
        var timeout = TimeSpan.FromSeconds(parseResult.GetValue(_timeout));

        using var http = new HttpClient { Timeout = timeout };
        HealthReport report;
        try
        {
            report = await new HealthProbe(http).CheckAsync(parseResult.GetRequiredValue(_url), apiKey, cancellationToken).ConfigureAwait(false);
        }
        catch (HttpRequestException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"cannot reach the server at {url}: {ex.Message}", ex);
        }
        catch (TaskCanceledException ex) when (!cancellationToken.IsCancellationRequested)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"no answer from {url} within {timeout.TotalSeconds:0.#} s", ex);
        }

        if (report.StatusCode == HttpStatusCode.Unauthorized)
        {
            var hint = string.IsNullOrEmpty(apiKey) ? $"pass --api-key or set {ApiKeyVariable}" : "check the key";
            throw new CommandFailedException(ExitCodes.Failure, $"{url} refused the request for want of the right API key (HTTP 401): {hint}");
        }

        if (report.Status is null)
        {
            throw new CommandFailedException(
                ExitCodes.Failure,
                $"{url} answered HTTP {(int)report.StatusCode} {report.StatusCode} without a health status; is it an Ingest server?");
        }

        var output = parseResult.InvocationConfiguration.Output;
        await output.WriteLineAsync($"{report.Status} ({url}, HTTP {(int)report.StatusCode})").ConfigureAwait(false);
        foreach (var (name, value) in report.Details)
        {
            await output.WriteLineAsync($"  {name}: {value}").ConfigureAwait(false);
        }

        return report.IsHealthy ? ExitCodes.Success : ExitCodes.Failure;
    }
}
