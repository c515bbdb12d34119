using System.CommandLine;
using System.CommandLine.Parsing;

namespace Ingest.Cli.Commands;

/// <summary>Checks shared by several options, reported as parse errors (exit code 2) rather than failures later on.</summary>
internal static class OptionValidation
{
    public static Option<string> NotEmpty(this Option<string> option)
    {
        ArgumentNullException.ThrowIfNull(option);
        option.Validators.Add(result =>
        {
            if (string.IsNullOrWhiteSpace(result.GetValueOrDefault<string>()))
            {
                result.AddError($"{option.Name} must not be empty");
            }
        });
        return option;
    }

    public static Option<int> Positive(this Option<int> option)
    {
        ArgumentNullException.ThrowIfNull(option);
        option.Validators.Add(result =>
        {
            if (result.GetValueOrDefault<int>() <= 0)
            {
                result.AddError($"{option.Name} must be a positive number");
            }
        });
        return option;
    }

    /// <summary>
    /// True when a required option of the command is missing. System.CommandLine does not report
    /// missing required options once a command validator has added an error, so command validators
    /// step back until those are given: "--topic is required" first, the finer points after.
    /// </summary>
    public static bool MissesRequiredOptions(this CommandResult result)
    {
        ArgumentNullException.ThrowIfNull(result);
        return result.Command.Options.Any(option => option.Required && result.GetResult(option) is null);
    }

    /// <summary>Parses an absolute URI with one of <paramref name="schemes"/>; the built-in parser reports bad URIs only when read.</summary>
    public static Uri? ParseUri(ArgumentResult result, params string[] schemes)
    {
        ArgumentNullException.ThrowIfNull(result);
        var text = result.Tokens.Count > 0 ? result.Tokens[^1].Value : string.Empty;
        if (Uri.TryCreate(text, UriKind.Absolute, out var uri) && schemes.Contains(uri.Scheme, StringComparer.OrdinalIgnoreCase))
        {
            return uri;
        }

        result.AddError($"'{text}' is not an absolute {string.Join(" or ", schemes)} URI (like {schemes[0]}://host:port/)");
        return null;
    }
}
