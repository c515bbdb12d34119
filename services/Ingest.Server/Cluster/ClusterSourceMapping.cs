using Ingest.Server.Sources;
using Ingest.Server.Sources.Mapping;

namespace Ingest.Server.Cluster;

/// <summary>
/// How a RabbitMQ source maps its messages, for the forwarded copies (<c>source</c> records) every node applies
/// from the cluster topic: the same rules and transform the source uses in single-node mode.
/// </summary>
internal sealed record ClusterSourceMapping(string Name, MappingRules Rules, SourceScript? Script, string DefaultQueue)
{
    /// <summary>Every configured RabbitMQ source's mapping, by name (case-insensitive, as source names are).</summary>
    public static Dictionary<string, ClusterSourceMapping> FromOptions(SourcesOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var mappings = new Dictionary<string, ClusterSourceMapping>(StringComparer.OrdinalIgnoreCase);
        for (var i = 0; i < options.RabbitMq.Count; i++)
        {
            var source = options.RabbitMq[i];
            var name = source.EffectiveName(i);
            mappings[name] = new ClusterSourceMapping(name, source.ToMappingRules(), source.CompileScript(name), source.Queues.Count > 0 ? source.Queues[0] : name);
        }

        return mappings;
    }
}
