using System.CommandLine;
using Ingest.Cli.Store;
using Ingest.Documents;
using Ingest.Storage;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest verify DIR</c>: checks a stopped server's store page by page, then reads every document as the
/// server would (each compressed one decompresses with its dictionary to its recorded length; reference
/// counts and stored-bytes counters match); exit 0 when sound, 1 when damaged.
/// </summary>
internal sealed class VerifyCommand : Command
{
    private readonly Argument<string> _directory = StoreDirectory.CreateArgument();

    public VerifyCommand()
        : base("verify", "Check every page's checksum and every tree's structure of a stopped server's store, then read every document (compressed ones decompressed); print each damaged page with what lives there and each damaged document by id.")
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

        var documentProblems = await VerifyDocumentsAsync(directory, output).ConfigureAwait(false);
        var verdict = (report.IsClean, documentProblems) switch
        {
            (true, 0) => "clean",
            (true, _) => $"{documentProblems} document problem(s)",
            (false, 0) => $"{report.Damaged.Count} damaged page(s)",
            _ => $"{report.Damaged.Count} damaged page(s), {documentProblems} document problem(s)",
        };
        await output.WriteLineAsync($"{directory}: transaction {report.TransactionId}, {report.PagesChecked} pages in {report.TreesChecked} trees checked: {verdict}").ConfigureAwait(false);
        return report.IsClean && documentProblems == 0 ? ExitCodes.Success : ExitCodes.Failure;
    }

    /// <summary>Reads every document; prints each problem and a summary line; returns how many problems (a read that fails on a damaged page counts as one).</summary>
    private static async Task<int> VerifyDocumentsAsync(string directory, TextWriter output)
    {
        DocumentVerificationReport documents;
        try
        {
            using var store = DocumentStore.Open(directory, new DocumentStoreOptions { Compression = false });
            using var reader = store.BeginRead();
            documents = reader.VerifyDocuments();
        }
        catch (Exception ex) when (ex is StorageCorruptionException or InvalidDataException)
        {
            await output.WriteLineAsync($"damaged document: the documents could not all be read: {ex.Message}").ConfigureAwait(false);
            return 1;
        }

        foreach (var problem in documents.Problems)
        {
            await output.WriteLineAsync($"damaged document: {problem}").ConfigureAwait(false);
        }

        await output.WriteLineAsync($"documents: {documents.DocumentsChecked} read, {documents.CompressedDocuments} compressed ones decompressed, {documents.Dictionaries} dictionaries").ConfigureAwait(false);
        return documents.Problems.Count;
    }
}
