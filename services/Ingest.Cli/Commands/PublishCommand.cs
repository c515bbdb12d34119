using System.CommandLine;
using System.Diagnostics;
using Ingest.Cli.Publishing;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest publish kafka|rabbitmq</c>: validate the whole input, then publish it and wait for every acknowledgement.</summary>
internal sealed class PublishCommand : Command
{
    // Enough to fix a file by; a thoroughly broken one would otherwise scroll its first lines away.
    private const int MaxErrorsShown = 20;

    public PublishCommand()
        : base("publish", "Publish JSON documents to a Kafka topic or a RabbitMQ queue or exchange for Ingest to store.")
    {
        Add(new PublishKafkaCommand());
        Add(new PublishRabbitMqCommand());
    }

    /// <summary>The part every destination shares: read and validate, publish, summarize.</summary>
    public static async Task<int> RunAsync(ParseResult parseResult, PublishOptions options, IDocumentPublisher publisher, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        ArgumentNullException.ThrowIfNull(options);
        ArgumentNullException.ThrowIfNull(publisher);

        var documents = await ReadDocumentsAsync(parseResult, options, cancellationToken).ConfigureAwait(false);
        var stopwatch = Stopwatch.StartNew();
        // Progress goes to stderr, so stdout keeps only the summary for scripts.
        var error = parseResult.InvocationConfiguration.Error;
        var progress = new PublishProgress(error, IsTerminal(error), documents.Count, ProgressInterval);
        using (var tracing = PublishTracing.Start(publisher.Destination, documents.Count))
        {
            await using (progress.ConfigureAwait(false))
            {
                try
                {
                    await publisher.PublishAsync(documents, options.Settings(parseResult) with { Progress = progress }, cancellationToken).ConfigureAwait(false);
                }
                catch (Exception ex)
                {
                    tracing.Failed(ex);
                    throw;
                }
            }
        }

        var noun = documents.Count == 1 ? "document" : "documents";
        await parseResult.InvocationConfiguration.Output.WriteLineAsync(
            $"published {documents.Count} {noun} to {publisher.Destination} in {stopwatch.ElapsedMilliseconds} ms").ConfigureAwait(false);
        return ExitCodes.Success;
    }

    /// <summary>How often progress is shown; <c>INGEST_PROGRESS_INTERVAL_MS</c> overrides the default (tests, slow terminals).</summary>
    private static TimeSpan ProgressInterval =>
        int.TryParse(Environment.GetEnvironmentVariable(ProgressIntervalVariable), System.Globalization.NumberStyles.None, System.Globalization.CultureInfo.InvariantCulture, out var ms) && ms > 0
            ? TimeSpan.FromMilliseconds(ms)
            : TimeSpan.FromSeconds(2);

    public const string ProgressIntervalVariable = "INGEST_PROGRESS_INTERVAL_MS";

    /// <summary>A bar redrawn in place only on a terminal: the console's own stderr, not redirected.</summary>
    private static bool IsTerminal(TextWriter error) => ReferenceEquals(error, Console.Error) && !Console.IsErrorRedirected;

    private static async Task<IReadOnlyList<InputDocument>> ReadDocumentsAsync(ParseResult parseResult, PublishOptions options, CancellationToken cancellationToken)
    {
        var readerOptions = options.ReaderOptions(parseResult);
        var input = parseResult.GetValue(options.Input);
        if (input is null)
        {
            // A delete by --id alone: there is no body to read (the validator allows nothing else).
            return [new InputDocument(0, readerOptions.Id!, ReadOnlyMemory<byte>.Empty)];
        }

        var reader = new DocumentReader(readerOptions);
        var inputName = input == "-" ? "stdin" : input;
        DocumentReadResult result;
        if (input == "-")
        {
            var stdin = Console.OpenStandardInput();
            await using (stdin.ConfigureAwait(false))
            {
                result = await reader.ReadAsync(stdin, cancellationToken).ConfigureAwait(false);
            }
        }
        else
        {
            result = reader.Read(await ReadFileAsync(input, cancellationToken).ConfigureAwait(false));
        }

        if (result.Succeeded)
        {
            return result.Documents;
        }

        var error = parseResult.InvocationConfiguration.Error;
        foreach (var problem in result.Errors.Take(MaxErrorsShown))
        {
            await error.WriteLineAsync($"error: {inputName}: {problem}").ConfigureAwait(false);
        }

        if (result.Errors.Count > MaxErrorsShown)
        {
            await error.WriteLineAsync($"error: ... and {result.Errors.Count - MaxErrorsShown} more").ConfigureAwait(false);
        }

        var problems = result.Errors.Count == 1 ? "1 problem" : $"{result.Errors.Count} problems";
        throw new CommandFailedException(ExitCodes.Usage, $"{problems} in {inputName}; nothing was published");
    }

    private static async Task<byte[]> ReadFileAsync(string path, CancellationToken cancellationToken)
    {
        try
        {
            return await File.ReadAllBytesAsync(path, cancellationToken).ConfigureAwait(false);
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"no such file: {path}", ex);
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"cannot read {path}: {ex.Message}", ex);
        }
    }
}
