namespace Ingest.Server.Sources;

/// <summary>Where a source reset moves a source's positions to.</summary>
public enum SourceResetKind
{
    /// <summary>Each partition's low watermark: everything the broker still holds is applied again.</summary>
    Earliest,

    /// <summary>Each partition's high watermark: what the broker holds now is skipped.</summary>
    Latest,

    /// <summary>Each partition's first offset whose timestamp is at or after a time (the broker's offsets-for-times).</summary>
    Time,

    /// <summary>Offsets given per topic and partition; the partitions not named keep their positions.</summary>
    Offsets,
}
