namespace Ingest.Storage.Trees;

/// <summary>Where <see cref="CursorPath{TLayout, TKey}.Position"/> puts a cursor.</summary>
internal enum CursorStart
{
    /// <summary>On the first key >= the key given.</summary>
    AtKey,

    /// <summary>On the smallest key.</summary>
    First,

    /// <summary>On the largest key.</summary>
    Last,
}
