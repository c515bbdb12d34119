using System.CommandLine;
using Ingest.Contracts.Http;

namespace Ingest.Cli.Commands;

/// <summary>
/// <c>ingest keys new --scopes read</c>: makes an API key and prints it once beside the hash the server is
/// configured with (<c>Ingest:ApiKeys:N:KeyHash</c>), so the key itself never has to be stored server-side.
/// <c>ingest keys hash</c> hashes an existing key read from stdin (never from the command line, which the
/// process list and shell history keep).
/// </summary>
internal sealed class KeysCommand : Command
{
    public KeysCommand()
        : base("keys", "Make API keys for the server's Ingest:ApiKeys and hash existing ones; runs offline.")
    {
        Add(new NewKeyCommand());
        Add(new HashKeyCommand());
    }

    private sealed class NewKeyCommand : Command
    {
        private const string Examples = """
            Examples:
              ingest keys new --scopes read --name grafana
              ingest keys new --scopes read,write --name orders-writer
              ingest keys new --scopes admin --name ops
            """;

        private readonly Option<string[]> _scopes = new("--scopes")
        {
            Description = "What the key may do: read (documents, queries, Grafana, stats, health), write (document writes, dead-letter replay), admin (everything, including indexes, ETL, sources, backup). Comma-separated or repeated.",
            HelpName = "SCOPES",
            Required = true,
            AllowMultipleArgumentsPerToken = true,
        };

        private readonly Option<string> _name = new("--name")
        {
            Description = "The key's name, shown in the server's logs and 403 answers in place of the key.",
            HelpName = "NAME",
            DefaultValueFactory = _ => "client",
        };

        private readonly Option<int> _index = new("--index")
        {
            Description = "N in the Ingest:ApiKeys:N settings printed (the next free one in your configuration).",
            HelpName = "N",
            DefaultValueFactory = _ => 0,
        };

        public NewKeyCommand()
            : base("new", "Make a new random API key; print it once with the settings that configure the server with its hash.\n\n" + Examples)
        {
            Add(_scopes);
            Add(_name);
            Add(_index);
            _scopes.Validators.Add(result =>
            {
                foreach (var scope in Split(result.GetValueOrDefault<string[]>() ?? []))
                {
                    if (!ApiKeyRules.IsScope(scope))
                    {
                        result.AddError($"--scopes: '{scope}' is not a scope; use {ApiKeyRules.AllScopes}");
                    }
                }
            });
            _name.Validators.Add(result =>
            {
                if (!ApiKeyRules.IsValidName(result.GetValueOrDefault<string>()))
                {
                    result.AddError($"--name may hold only letters, digits, '.', '-' and '_', 1 to {ApiKeyRules.MaxNameLength} characters");
                }
            });
            _index.Validators.Add(result =>
            {
                if (result.GetValueOrDefault<int>() < 0)
                {
                    result.AddError("--index must be 0 or more");
                }
            });
            SetAction(RunAsync);
        }

        private async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
        {
            var scopes = Split(parseResult.GetRequiredValue(_scopes));
            var name = parseResult.GetRequiredValue(_name);
            var index = parseResult.GetValue(_index);
            var key = ApiKeyHash.NewKey();
            var hash = ApiKeyHash.Format(key);
            var output = parseResult.InvocationConfiguration.Output;
            await output.WriteLineAsync($"key:      {key}").ConfigureAwait(false);
            await output.WriteLineAsync($"key hash: {hash}").ConfigureAwait(false);
            await output.WriteLineAsync().ConfigureAwait(false);
            await output.WriteLineAsync("Give the key to its client now: it is not shown again and the server keeps only the hash.").ConfigureAwait(false);
            await output.WriteLineAsync("Server settings (environment variables; in appsettings.json the same names under Ingest:ApiKeys):").ConfigureAwait(false);
            await output.WriteLineAsync($"  Ingest__ApiKeys__{index}__Name={name}").ConfigureAwait(false);
            for (var i = 0; i < scopes.Count; i++)
            {
                await output.WriteLineAsync($"  Ingest__ApiKeys__{index}__Scopes__{i}={scopes[i]}").ConfigureAwait(false);
            }

            await output.WriteLineAsync($"  Ingest__ApiKeys__{index}__KeyHash={hash}").ConfigureAwait(false);
            return ExitCodes.Success;
        }
    }

    private sealed class HashKeyCommand : Command
    {
        public HashKeyCommand()
            : base("hash", "Read a key from stdin (one line) and print the hash to configure as Ingest:ApiKeys:N:KeyHash.\n\nExample:\n  printf '%s' \"$INGEST_API_KEY\" | ingest keys hash")
        {
            SetAction(RunAsync);
        }

        private static async Task<int> RunAsync(ParseResult parseResult, CancellationToken cancellationToken)
        {
            var line = await Console.In.ReadLineAsync(cancellationToken).ConfigureAwait(false);
            if (string.IsNullOrEmpty(line))
            {
                throw new CommandFailedException(ExitCodes.Usage, "no key on stdin; pipe it in, e.g. printf '%s' \"$INGEST_API_KEY\" | ingest keys hash");
            }

            if (line.Length < 16)
            {
                throw new CommandFailedException(ExitCodes.Usage, "the key is shorter than 16 characters, which the server refuses; make one with 'ingest keys new'");
            }

            await parseResult.InvocationConfiguration.Output.WriteLineAsync(ApiKeyHash.Format(line)).ConfigureAwait(false);
            return ExitCodes.Success;
        }
    }

    private static List<string> Split(string[] values)
    {
        var scopes = new List<string>();
        foreach (var value in values)
        {
            foreach (var part in value.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
            {
                var scope = part.ToLowerInvariant();
                if (!scopes.Contains(scope))
                {
                    scopes.Add(scope);
                }
            }
        }

        return scopes;
    }
}
