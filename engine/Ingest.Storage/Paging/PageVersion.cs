namespace Ingest.Storage.Paging;

/// <summary>One committed page version held in scratch memory: page (or run) number, the transaction that wrote it, where it is.</summary>
internal struct PageVersion
{
    public long Page;
    public long TxId;
    public nint Pointer;
    public int Pages;
}
