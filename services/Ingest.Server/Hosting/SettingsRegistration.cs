using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting;

/// <summary>Options bound from configuration once and checked as the host starts, so a bad setting stops start-up, named.</summary>
internal static class SettingsRegistration
{
    /// <summary>
    /// Binds <typeparamref name="TOptions"/> to <paramref name="section"/> and validates it on start with
    /// <paramref name="validate"/>, which reports every problem at once (<see cref="SettingsValidator{TOptions}"/>).
    /// </summary>
    public static IServiceCollection AddValidatedSettings<TOptions>(
        this IServiceCollection services, IConfigurationSection section, Func<TOptions, IReadOnlyList<string>> validate)
        where TOptions : class =>
        services.AddValidatedSettings(validate, builder => builder.Bind(section));

    /// <summary>As the overload with a section, for options bound some other way by <paramref name="bind"/>.</summary>
    public static IServiceCollection AddValidatedSettings<TOptions>(
        this IServiceCollection services, Func<TOptions, IReadOnlyList<string>> validate, Action<OptionsBuilder<TOptions>> bind)
        where TOptions : class
    {
        ArgumentNullException.ThrowIfNull(bind);
        var builder = services.AddOptions<TOptions>();
        bind(builder);
        builder.ValidateOnStart();
        services.AddSingleton<IValidateOptions<TOptions>>(new SettingsValidator<TOptions>(validate));
        return services;
    }
}
