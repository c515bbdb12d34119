using Ingest.Documents;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Runtime;
using Ingest.Query;
using Ingest.Query.AutoIndexes;
using Ingest.Server.Hosting;
using Ingest.Server.Indexes;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Queries;

/// <summary>
/// The server's <see cref="QueryEngine"/>: one per data directory, made by the container after the document store
/// (so it is disposed first, the store last), opened at start before the server listens, the indexes declared in
/// configuration applied then.
/// </summary>
internal static partial class QueryEngineRegistration
{
    public static IServiceCollection AddQueryEngine(this IServiceCollection services)
    {
        services.AddValidatedSettings<QueryLimitOptions>(static o => o.Validate(), static builder => builder.BindConfiguration(QuerySettings.SectionName));
        services.AddSingleton<QueryGate>();
        return services.AddSingleton(static provider =>
        {
            var store = provider.GetRequiredService<DocumentStore>();
            var data = provider.GetRequiredService<DataDirectory>();

            // Reading the options validates them, so a bad one stops start-up here, named (configured indexes included).
            var indexing = provider.GetRequiredService<IOptions<IndexingOptions>>().Value;
            _ = provider.GetRequiredService<IOptions<ConfiguredIndexesOptions>>().Value;
            var autoIndexes = provider.GetRequiredService<IOptions<AutoIndexOptions>>().Value;
            return new QueryEngine(
                store,
                data.FullPath,
                new QueryEngineOptions { Indexing = indexing, AutoIndexes = autoIndexes },
                provider.GetRequiredService<ILoggerFactory>(),
                provider.GetRequiredService<TimeProvider>());
        });
    }

    /// <summary>Opens the engine (each index resumes from its last indexed etag) and applies the configured definitions.</summary>
    public static async Task OpenQueryEngineAsync(this IServiceProvider services, CancellationToken ct)
    {
        var engine = services.GetRequiredService<QueryEngine>();
        var configured = services.GetRequiredService<IOptions<ConfiguredIndexesOptions>>().Value.ToDefinitions();
        var logger = services.GetRequiredService<ILoggerFactory>().CreateLogger(typeof(QueryEngine));
        await engine.OpenAsync(ct).ConfigureAwait(false);
        for (var i = 0; i < configured.Count; i++)
        {
            var definition = configured[i];
            IndexPutOutcome outcome;
            try
            {
                outcome = await engine.Indexes.PutAsync(definition, ct).ConfigureAwait(false);
            }
            catch (IndexDefinitionException ex)
            {
                // Validated with the settings already; kept so that a stricter engine still names the setting.
                throw new InvalidOperationException($"{ConfiguredIndexesOptions.IndexesKey}:{i} ('{definition.Name}'): {ex.Message}", ex);
            }

            LogConfiguredIndex(logger, definition.Name, i, outcome);
        }
    }

    [LoggerMessage(Level = LogLevel.Information, Message = "Index '{Name}' from Ingest:Indexes:{Position}: {Outcome}")]
    private static partial void LogConfiguredIndex(ILogger logger, string name, int position, IndexPutOutcome outcome);
}
