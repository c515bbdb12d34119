using System.ComponentModel.DataAnnotations;

namespace Ingest.Server.Hosting;

/// <summary>
/// The service's own settings, bound from the <c>Ingest</c> section of configuration
/// (appsettings.json, then environment variables such as <c>Ingest__DataDirectory</c>).
/// </summary>
public sealed class IngestOptions
{
    public const string SectionName = "Ingest";

    /// <summary>Where the embedded storage lives; relative paths resolve against the working directory.</summary>
    [Required(AllowEmptyStrings = false)]
    public string DataDirectory { get; set; } = "./data";

    /// <summary>
    /// The largest document body, in bytes: the store refuses larger ones from every writer, and the
    /// HTTP server refuses larger request bodies with a 413. At least 1 MiB, because a message the
    /// store refuses is kept as a dead letter of up to 1 MiB, which the same limit applies to.
    /// </summary>
    [Range(1024 * 1024, int.MaxValue / 2, ErrorMessage = "Ingest:MaxDocumentBytes must be between 1048576 (1 MiB) and 1073741823.")]
    public int MaxDocumentBytes { get; set; } = 16 * 1024 * 1024;

    /// <summary>When set, every endpoint but <c>/alive</c> requires it in the <c>X-Api-Key</c> header.</summary>
    [MinLength(16, ErrorMessage = "Ingest:ApiKey must be at least 16 characters when set.")]
    public string? ApiKey { get; set; }
}
