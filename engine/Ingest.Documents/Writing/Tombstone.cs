namespace Ingest.Documents.Writing;

/// <summary>What removing a live document leaves behind (see <c>DocumentRecord</c> for the fields a tombstone holds).</summary>
internal enum Tombstone
{
    /// <summary>Nothing: a put replaced it.</summary>
    None,

    /// <summary>A tombstone without a log position.</summary>
    Plain,

    /// <summary>A tombstone with the delete's log position.</summary>
    Positioned,

    /// <summary>A tombstone of an expiration: the expired version's expiry and log position.</summary>
    OfExpired,
}
