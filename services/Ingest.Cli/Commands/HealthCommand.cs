using System.CommandLine;
using System.Net;
using Ingest.Cli.Health;
using Ingest.Cli.Server;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest health</c>: exit 0 when the server reports itself healthy, 1 in every other case.</summary>
internal sealed class HealthCommand : Command
{
    private readonly ServerOptions _server = new(defaultTimeoutSeconds: 5);

    public HealthCommand()
        : base("health", "Check a running Ingest server: print its health and exit 0 if it is healthy, 1 otherwise.")
    {
        _server.AddTo(this);
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var url = HealthProbe.HealthUrl(parseResult.GetRequiredValue(_server.Url));
        var apiKey = parseResult.GetValue(_server.ApiKey) ?? Environment.GetEnvironmentVariable(ServerOptions.ApiKeyVariable);
        var timeout = TimeSpan.FromSeconds(parseResult.GetValue(_server.Timeout));

        var trust = _server.Trust(parseResult);
        using var http = trust.CreateHttpClient(timeout);
        HealthReport report;
        try
        {
            report = await new HealthProbe(http).CheckAsync(parseResult.GetRequiredValue(_server.Url), apiKey, cancellationToken).ConfigureAwait(false);
        }
        catch (HttpRequestException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, trust.Describe(ex, url) ?? $"cannot reach the server at {url}: {ex.Message}", ex);
        }
        catch (TaskCanceledException ex) when (!cancellationToken.IsCancellationRequested)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"no answer from {url} within {timeout.TotalSeconds:0.#} s", ex);
        }

        if (report.StatusCode == HttpStatusCode.Unauthorized)
        {
            var hint = string.IsNullOrEmpty(apiKey) ? $"pass --api-key or set {ServerOptions.ApiKeyVariable}" : "check the key";
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
