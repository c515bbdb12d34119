using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting;

/// <summary>Reports every problem an options class finds in itself, so start-up names each bad setting at once.</summary>
internal sealed class SettingsValidator<TOptions>(Func<TOptions, IReadOnlyList<string>> validate) : IValidateOptions<TOptions>
    where TOptions : class
{
    public ValidateOptionsResult Validate(string? name, TOptions options)
    {
        var errors = validate(options);
        return errors.Count == 0 ? ValidateOptionsResult.Success : ValidateOptionsResult.Fail(errors);
    }
}
