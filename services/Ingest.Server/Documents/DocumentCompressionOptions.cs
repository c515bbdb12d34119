using Ingest.Documents;

namespace Ingest.Server.Documents;

/// <summary>
/// How the store compresses document bodies, bound from <c>Ingest:Documents</c> (the <c>Compression*</c> settings).
/// Readers always see the JSON; see docs/operations.md, "Compression".
/// </summary>
public sealed class DocumentCompressionOptions
{
    public const string SectionName = "Ingest:Documents";

    /// <summary>Store bodies zstd-compressed, with a dictionary per collection. Off: new bodies are stored raw (compressed ones still read).</summary>
    public bool Compression { get; set; }

    /// <summary>The zstd level, 1 (fastest) to 19 (smallest).</summary>
    public int CompressionLevel { get; set; } = 3;

    /// <summary>Bodies smaller than this are stored raw.</summary>
    public int CompressionMinimumBytes { get; set; } = 64;

    /// <summary>A collection trains its dictionary from its last this many documents, once it has put this many; the ratio is checked every this many puts.</summary>
    public int CompressionDictionaryTrainingDocuments { get; set; } = 1000;

    /// <summary>The largest dictionary, in bytes.</summary>
    public int CompressionDictionaryBytes { get; set; } = 32 * 1024;

    /// <summary>Retrain when the last window's stored/JSON ratio is this many times worse than the dictionary's on its training sample.</summary>
    public double CompressionRetrainRatio { get; set; } = 1.25;

    /// <summary>Every problem with these settings, each naming the setting; empty when valid.</summary>
    public IReadOnlyList<string> Validate()
    {
        var errors = new List<string>();
        if (CompressionLevel is < 1 or > 19)
        {
            errors.Add($"{SectionName}:{nameof(CompressionLevel)} must be between 1 and 19 (was {CompressionLevel}).");
        }

        if (CompressionMinimumBytes < 0)
        {
            errors.Add($"{SectionName}:{nameof(CompressionMinimumBytes)} must be >= 0 (was {CompressionMinimumBytes}).");
        }

        if (CompressionDictionaryTrainingDocuments < 10)
        {
            errors.Add($"{SectionName}:{nameof(CompressionDictionaryTrainingDocuments)} must be >= 10, zstd trains from 10 samples or more (was {CompressionDictionaryTrainingDocuments}).");
        }

        if (CompressionDictionaryBytes is < 1024 or > 1024 * 1024)
        {
            errors.Add($"{SectionName}:{nameof(CompressionDictionaryBytes)} must be between 1024 and 1048576 (was {CompressionDictionaryBytes}).");
        }

        if (!(CompressionRetrainRatio >= 1))
        {
            errors.Add($"{SectionName}:{nameof(CompressionRetrainRatio)} must be >= 1 (was {CompressionRetrainRatio}).");
        }

        return errors;
    }

    /// <summary>Copies these settings onto the engine's options.</summary>
    public void ApplyTo(DocumentStoreOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        options.Compression = Compression;
        options.CompressionLevel = CompressionLevel;
        options.CompressionMinimumBytes = CompressionMinimumBytes;
        options.DictionaryTrainingDocuments = CompressionDictionaryTrainingDocuments;
        options.DictionaryBytes = CompressionDictionaryBytes;
        options.DictionaryRetrainRatio = CompressionRetrainRatio;
    }
}
