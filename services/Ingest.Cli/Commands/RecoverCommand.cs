using System.CommandLine;
using Ingest.Cli.Store;
using Ingest.Storage;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest recover DIR</c>: opens a stopped server's store, replaying its journal. A damaged journal
/// (a file missing, emptied or truncated) is refused with what is at risk; <c>--accept-loss</c> keeps
/// what is intact, gives up the rest and prints what was lost.
/// </summary>
internal sealed class RecoverCommand : Command
{
    private readonly Argument<string> _directory = StoreDirectory.CreateArgument();

    private readonly Option<bool> _acceptLoss = new("--accept-loss")
    {
        Description = "If the journal is damaged, keep the transactions before the damage and discard the rest for good.",
    };

    public RecoverCommand()
        : base("recover", "Open a stopped server's store and replay its journal; with --accept-loss, open it even though the journal is damaged, and print what was lost.")
    {
        Add(_directory);
        Add(_acceptLoss);
        SetAction(RunAsync);
    }

    private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
    {
        var directory = StoreDirectory.Resolve(parseResult.GetRequiredValue(_directory));
        var acceptLoss = parseResult.GetValue(_acceptLoss);
        var options = new StorageOptions { AcceptJournalLoss = acceptLoss };
        JournalLoss? loss;
        long lastTransaction;
        using (var env = StoreDirectory.Open(directory, options, acceptLoss ? string.Empty : ". Rerun with --accept-loss to keep what is intact and give up the rest, or restore a backup."))
        {
            loss = env.AcceptedJournalLoss;
            lastTransaction = env.LastCommittedTransactionId;
        }

        var output = parseResult.InvocationConfiguration.Output;
        if (loss is null)
        {
            await output.WriteLineAsync($"{directory}: the journal is intact; nothing lost (last transaction {lastTransaction})").ConfigureAwait(false);
            return ExitCodes.Success;
        }

        var lost = loss.LastKnownTransaction is { } known
            ? $"transactions {loss.LastRecoveredTransaction + 1} to {known} (at least)"
            : $"every transaction after {loss.LastRecoveredTransaction} (how many is unknown)";
        await output.WriteLineAsync($"{directory}: accepted the journal's loss: kept transactions up to {loss.LastRecoveredTransaction}, lost {lost}").ConfigureAwait(false);
        await output.WriteLineAsync($"  damage: {loss.Description}").ConfigureAwait(false);
        return ExitCodes.Success;
    }
}
