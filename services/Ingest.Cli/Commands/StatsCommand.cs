using System.CommandLine;
using System.Diagnostics;
using System.Globalization;
using System.Text.Json;
using Ingest.Cli.Output;
using Ingest.Cli.Server;
using Ingest.Contracts.Http;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest stats</c>: a running server's <c>/stats</c>, refreshed every <c>--interval</c> seconds until Ctrl+C. On
/// a terminal the view is redrawn in place; otherwise (a pipe, a file, CI) a plain line per refresh. <c>--once</c>
/// prints the full view once and exits, for scripts.
/// </summary>
internal sealed class StatsCommand : Command
{
    private const string Examples = """
        Examples:
          ingest stats                           (redrawn every 2 s; Ctrl+C to stop)
          ingest stats --interval 10 >> ingest-stats.log
          ingest stats --once --url http://ingest:8080
        """;

    /// <summary>Home the cursor and clear the screen: the next view draws over the last.</summary>
    private const string Redraw = "\u001b[H\u001b[2J";

    private readonly ServerOptions _server = new(defaultTimeoutSeconds: 10);

    private readonly Option<double> _interval = new("--interval")
    {
        Description = "Seconds between refreshes.",
        HelpName = "SECONDS",
        DefaultValueFactory = _ => 2,
    };

    private readonly Option<bool> _once = new("--once")
    {
        Description = "Print the full view once and exit (for scripts).",
    };

    private readonly Option<int?> _count = new("--count")
    {
        Description = "Stop after this many refreshes (default: until Ctrl+C).",
        HelpName = "N",
    };

    public StatsCommand()
        : base("stats", "Watch a running Ingest server: documents, write rates, each source's consumption and lag, indexes and ETL tasks, refreshed until Ctrl+C.\n\n" + Examples)
    {
        _server.AddTo(this);
        Add(_interval);
        Add(_once);
        Add(_count);
        _interval.Validators.Add(result =>
        {
            if (!(result.GetValueOrDefault<double>() > 0))
            {
                result.AddError("--interval must be a positive number of seconds");
            }
        });
        _count.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int?>() is <= 0)
            {
                result.AddError("--count must be a positive number");
            }
        });
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var output = parseResult.InvocationConfiguration.Output;
        using var client = _server.CreateClient(parseResult);
        var first = await FetchAsync(client, cancellationToken).ConfigureAwait(false);
        if (parseResult.GetValue(_once))
        {
            await StatsView.WriteBlockAsync(output, first, null, TimeSpan.Zero).ConfigureAwait(false);
            return ExitCodes.Success;
        }

        var interactive = ReferenceEquals(output, Console.Out) && !Console.IsOutputRedirected;
        var interval = TimeSpan.FromSeconds(parseResult.GetValue(_interval));
        var remaining = parseResult.GetValue(_count) ?? int.MaxValue;
        var url = client.AddressOf(string.Empty);
        StatsResponse? previous = null;
        var current = first;
        var clock = Stopwatch.StartNew();
        var elapsed = TimeSpan.Zero;
        try
        {
            while (true)
            {
                if (interactive)
                {
                    await output.WriteAsync(Redraw).ConfigureAwait(false);
                    await output.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"ingest stats: {url} at {DateTime.Now:HH:mm:ss}, every {interval.TotalSeconds:0.#} s (Ctrl+C to stop)")).ConfigureAwait(false);
                    await output.WriteLineAsync().ConfigureAwait(false);
                    await StatsView.WriteBlockAsync(output, current, previous, elapsed).ConfigureAwait(false);
                }
                else
                {
                    await output.WriteLineAsync(StatsView.Line(DateTimeOffset.UtcNow, current, previous, elapsed)).ConfigureAwait(false);
                }

                if (--remaining == 0)
                {
                    return ExitCodes.Success;
                }

                var next = await NextAsync(client, output, interval, cancellationToken).ConfigureAwait(false);
                elapsed = clock.Elapsed;
                clock.Restart();
                previous = current;
                current = next;
            }
        }
        catch (OperationCanceledException) when (cancellationToken.IsCancellationRequested)
        {
            return ExitCodes.Success; // Ctrl+C is how a watch ends
        }
    }

    /// <summary>The next sample after <paramref name="interval"/>. A watch outlives a restart of the server: a failed fetch is reported and retried (only the first one is fatal).</summary>
    private static async Task<StatsResponse> NextAsync(IngestApiClient client, TextWriter output, TimeSpan interval, CancellationToken cancellationToken)
    {
        while (true)
        {
            await Task.Delay(interval, cancellationToken).ConfigureAwait(false);
            try
            {
                return await FetchAsync(client, cancellationToken).ConfigureAwait(false);
            }
            catch (CommandFailedException ex)
            {
                await output.WriteLineAsync($"error: {ex.Message} (retrying every {interval.TotalSeconds:0.#} s)").ConfigureAwait(false);
            }
        }
    }

    private static async Task<StatsResponse> FetchAsync(IngestApiClient client, CancellationToken cancellationToken)
    {
        var body = await client.SendAsync(HttpMethod.Get, "stats", null, cancellationToken).ConfigureAwait(false);
        try
        {
            return JsonSerializer.Deserialize(body, IngestHttpJsonContext.Default.StatsResponse)
                ?? throw new JsonException("null");
        }
        catch (JsonException ex)
        {
            throw new CommandFailedException(ExitCodes.Failure, $"{client.AddressOf("stats")} did not answer with Ingest stats ({ex.Message}); is it an Ingest server?", ex);
        }
    }
}
