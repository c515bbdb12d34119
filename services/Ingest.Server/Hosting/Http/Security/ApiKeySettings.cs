using Ingest.Contracts.Http;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Hosting.Http.Security;

/// <summary>Binds and checks <c>Ingest:ApiKeys</c>, and turns the checked settings into the <see cref="ApiKeyRing"/> requests are matched against.</summary>
internal static class ApiKeySettings
{
    public static IServiceCollection AddApiKeys(this IServiceCollection services)
    {
        services.AddValidatedSettings<ApiKeysOptions>(Validate, static builder => builder.Configure<IConfiguration>(static (options, configuration) =>
        {
            configuration.GetSection(ApiKeysOptions.SectionName).Bind(options.Keys);
            options.LegacyKey = configuration[ApiKeysOptions.LegacySetting];
        }));
        services.AddSingleton(static provider => BuildRing(provider.GetRequiredService<IOptions<ApiKeysOptions>>().Value));
        return services;
    }

    /// <summary>Every problem with the keys, each naming its setting and never showing a key.</summary>
    public static IReadOnlyList<string> Validate(ApiKeysOptions options)
    {
        var errors = new List<string>();
        var names = new Dictionary<string, int>(StringComparer.OrdinalIgnoreCase);
        var hashes = new Dictionary<string, string>(StringComparer.Ordinal);
        if (!string.IsNullOrEmpty(options.LegacyKey))
        {
            hashes.Add(ApiKeyHash.Format(options.LegacyKey), ApiKeysOptions.LegacySetting);
        }

        Span<byte> hash = stackalloc byte[ApiKeyHash.HashBytes];
        for (var i = 0; i < options.Keys.Count; i++)
        {
            var key = options.Keys[i];
            var setting = $"{ApiKeysOptions.SectionName}:{i}";
            if (string.IsNullOrWhiteSpace(key.Name))
            {
                errors.Add($"{setting}:Name is required: it is what logs and 403 answers show in place of the key.");
            }
            else if (!ApiKeyRules.IsValidName(key.Name))
            {
                errors.Add($"{setting}:Name '{key.Name}' may hold only letters, digits, '.', '-' and '_', at most {ApiKeyRules.MaxNameLength} characters.");
            }
            else if (!names.TryAdd(key.Name, i))
            {
                errors.Add($"{setting}:Name '{key.Name}' is already the name of {ApiKeysOptions.SectionName}:{names[key.Name]}; names must be unique.");
            }

            if (!TryParseScopes(key.Scopes, out _, out var scopeError))
            {
                errors.Add($"{setting}:Scopes {scopeError}");
            }

            string? formatted = null;
            var hasKey = !string.IsNullOrEmpty(key.Key);
            var hasHash = !string.IsNullOrEmpty(key.KeyHash);
            if (hasKey == hasHash)
            {
                errors.Add($"{setting} needs exactly one of :KeyHash (what `ingest keys new` prints) or :Key (the plain key, for development).");
            }
            else if (hasKey && key.Key!.Length < ApiKeysOptions.MinimumKeyLength)
            {
                errors.Add($"{setting}:Key must be at least {ApiKeysOptions.MinimumKeyLength} characters (`ingest keys new` makes one).");
            }
            else if (hasKey)
            {
                formatted = ApiKeyHash.Format(key.Key!);
            }
            else if (!ApiKeyHash.TryParse(key.KeyHash, hash))
            {
                errors.Add($"{setting}:KeyHash must be '{ApiKeyHash.Prefix}' followed by 64 hex digits, as `ingest keys new` prints it.");
            }
            else
            {
                formatted = ApiKeyHash.Prefix + Convert.ToHexStringLower(hash);
            }

            if (formatted is not null && !hashes.TryAdd(formatted, setting))
            {
                errors.Add($"{setting} is the same key as {hashes[formatted]}; give each client its own key.");
            }
        }

        return errors;
    }

    /// <summary>The scopes a key's <c>Scopes</c> entries name (each entry one scope, or several separated by commas).</summary>
    public static bool TryParseScopes(IReadOnlyList<string> entries, out ApiScopes scopes, out string error)
    {
        scopes = ApiScopes.None;
        error = "";
        foreach (var entry in entries)
        {
            foreach (var part in entry.Split(',', StringSplitOptions.TrimEntries | StringSplitOptions.RemoveEmptyEntries))
            {
                if (!ApiScopeNames.TryParse(part, out var scope))
                {
                    error = $"has '{part}', which is not a scope; use {ApiScopeNames.All}.";
                    return false;
                }

                scopes |= scope;
            }
        }

        if (scopes == ApiScopes.None)
        {
            error = $"must list at least one of {ApiScopeNames.All}.";
            return false;
        }

        return true;
    }

    public static ApiKeyRing BuildRing(ApiKeysOptions options)
    {
        var keys = new List<(byte[], ApiCaller)>();
        if (!string.IsNullOrEmpty(options.LegacyKey))
        {
            keys.Add((HashOf(options.LegacyKey), new ApiCaller(ApiKeysOptions.LegacyKeyName, ApiScopes.Admin)));
        }

        foreach (var key in options.Keys)
        {
            TryParseScopes(key.Scopes, out var scopes, out _);
            byte[] hash;
            if (!string.IsNullOrEmpty(key.Key))
            {
                hash = HashOf(key.Key);
            }
            else
            {
                hash = new byte[ApiKeyHash.HashBytes];
                ApiKeyHash.TryParse(key.KeyHash, hash);
            }

            keys.Add((hash, new ApiCaller(key.Name!, scopes)));
        }

        return new ApiKeyRing(keys);
    }

    private static byte[] HashOf(string key)
    {
        var hash = new byte[ApiKeyHash.HashBytes];
        ApiKeyHash.Compute(key, hash);
        return hash;
    }
}
