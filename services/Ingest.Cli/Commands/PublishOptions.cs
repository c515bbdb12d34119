using System.CommandLine;
using System.CommandLine.Parsing;
using Ingest.Cli.Publishing;
using Ingest.Contracts.Messages;

namespace Ingest.Cli.Commands;

/// <summary>The input and message options every <c>publish</c> destination shares.</summary>
internal sealed class PublishOptions
{
    public Argument<string?> Input { get; } = new("file")
    {
        Description = "The JSON input: a file, or - for stdin. Not needed for --delete --id ID.",
        Arity = ArgumentArity.ZeroOrOne,
    };

    public Option<bool> Lines { get; } = new("--lines")
    {
        Description = "The input is JSON Lines: one document per line (blank lines are skipped).",
    };

    public Option<string?> Id { get; } = new("--id")
    {
        Description = "The id of the single document in the input.",
        HelpName = "ID",
    };

    public Option<string?> IdProperty { get; } = new("--id-property")
    {
        Description = "Take each document's id from this top-level property (a string or a number).",
        HelpName = "NAME",
    };

    public Option<string?> Collection { get; } = new("--collection")
    {
        Description = "The collection to store the documents in (the ingest-collection header); by default the source's.",
        HelpName = "NAME",
    };

    public Option<bool> Delete { get; } = new("--delete")
    {
        Description = "Delete the documents with these ids instead of storing them: empty bodies with ingest-op: delete.",
    };

    public void AddTo(Command command)
    {
        ArgumentNullException.ThrowIfNull(command);
        command.Add(Input);
        command.Add(Id);
        command.Add(IdProperty);
        command.Add(Lines);
        command.Add(Collection);
        command.Add(Delete);
        command.Validators.Add(Validate);
    }

    public DocumentReaderOptions ReaderOptions(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        return new DocumentReaderOptions(parseResult.GetValue(Lines), parseResult.GetValue(Id), parseResult.GetValue(IdProperty));
    }

    public PublishSettings Settings(ParseResult parseResult)
    {
        ArgumentNullException.ThrowIfNull(parseResult);
        var operation = parseResult.GetValue(Delete) ? IngestOperation.Delete : IngestOperation.Put;
        return new PublishSettings(operation, parseResult.GetValue(Collection));
    }

    private void Validate(CommandResult result)
    {
        if (result.MissesRequiredOptions())
        {
            return;
        }

        var reader = new DocumentReaderOptions(result.GetValue(Lines), result.GetValue(Id), result.GetValue(IdProperty));
        if (reader.Problem is { } problem)
        {
            result.AddError(problem);
        }
        else if (result.GetValue(Input) is null && !(result.GetValue(Delete) && reader.Id is not null))
        {
            result.AddError("give the input: a FILE, or - to read stdin");
        }

        if (result.GetValue(Collection) is { } collection && string.IsNullOrWhiteSpace(collection))
        {
            result.AddError("--collection must not be empty");
        }
    }
}
