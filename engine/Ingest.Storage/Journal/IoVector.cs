namespace Ingest.Storage.Journal;

/// <summary>One piece of a gathered write (struct iovec): where it is and how many bytes.</summary>
internal unsafe struct IoVector
{
    public byte* Base;
    public nuint Length;
}
