using System.CommandLine;
using Ingest.Cli.Store;
using Ingest.Storage;

namespace Ingest.Cli.Commands;

/// <summary><c>ingest verify DIR</c>: checks a stopped server's store page by page; exit 0 when sound, 1 when damaged.</summary>
internal sealed class VerifyCommand : Command
{
    private readonly Argument<string> _directory = StoreDirectory.CreateArgument();

    public VerifyCommand()
        : base("verify", "Check every page's checksum and every tree's structure of a stopped server's store; print each damaged page with what lives there.")
    {
        Add(_directory);
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var directory = StoreDirectory.Resolve(parseResult.GetRequiredValue(_directory));
        VerificationReport report;
        using (var env = StoreDirectory.Open(directory, new StorageOptions(), " (open failed before any page could be checked; see 'ingest recover --help')"))
        {
            report = env.Verify();
        }

        var output = parseResult.InvocationConfiguration.Output;
        foreach (var damaged in report.Damaged)
        {
            await output.WriteLineAsync($"damaged: {damaged}").ConfigureAwait(false);
        }

        var verdict = report.IsClean ? "clean" : $"{report.Damaged.Count} damaged page(s)";
        await output.WriteLineAsync($"{directory}: transaction {report.TransactionId}, {report.PagesChecked} pages in {report.TreesChecked} trees checked: {verdict}").ConfigureAwait(false);
        return report.IsClean ? ExitCodes.Success : ExitCodes.Failure;
    }
}
