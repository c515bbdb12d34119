namespace Ingest.Documents.Records;

/// <summary>
/// The trees of a document store in its storage environment.
/// <code>
/// docs/ids             Tree           folded id (UTF-8)           -> etag (int64, LE)
/// docs/by-etag         Tree           etag (BE)                   -> DocumentRecord
/// docs/tombstones      Tree           etag (BE)                   -> DocumentRecord without body, flag Deleted
/// docs/c/{collection}  FixedSizeTree  etag                        -> (set) documents of one collection
/// docs/collections     Tree           folded collection (UTF-8)   -> CollectionStatsRecord + collection name
/// docs/state           FixedSizeTree  0                           -> StoreStateRecord
/// docs/sources         Tree           source (UTF-8), 0, partition (BE) -> SourcePositionRecord
/// docs/dead-letters    Tree           id (BE)                     -> DeadLetterRecord + source + reason + raw
/// docs/consumers       Tree           consumer name (UTF-8)       -> ConsumerRecord
/// docs/compression     Tree           folded collection (UTF-8)   -> CompressionStateRecord
/// docs/dictionaries    Tree           dictionary id (u32 BE)      -> DictionaryRecord + collection + zstd dictionary
/// docs/dictionary-refs FixedSizeTree  dictionary id               -> documents compressed with it (i64); key 0: last id given
/// docs/expiry          Tree           expiry ticks (BE), folded id -> etag (int64, LE); see ExpiryKey
/// docs/expiration-rules Tree          folded collection (UTF-8)   -> ExpirationRuleRecord + field + collection name
/// docs/topics          Tree           'n' + topic name / 'i' + number (BE) -> number / name; see TopicKey
/// </code>
/// Documents live in etag order, so the changes feed is one sequential scan; the id tree is the
/// index that finds a document's etag.
/// </summary>
internal static class TreeNames
{
    public const string Ids = "docs/ids";
    public const string ByEtag = "docs/by-etag";
    public const string Tombstones = "docs/tombstones";
    public const string CollectionPrefix = "docs/c/";
    public const string Collections = "docs/collections";
    public const string State = "docs/state";
    public const string Sources = "docs/sources";
    public const string DeadLetters = "docs/dead-letters";
    public const string Consumers = "docs/consumers";
    public const string Compression = "docs/compression";
    public const string Dictionaries = "docs/dictionaries";
    public const string DictionaryReferences = "docs/dictionary-refs";
    public const string Expiry = "docs/expiry";
    public const string ExpirationRules = "docs/expiration-rules";
    public const string Topics = "docs/topics";
}
