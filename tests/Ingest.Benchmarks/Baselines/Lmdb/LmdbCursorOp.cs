namespace Ingest.Benchmarks.Baselines.Lmdb;

/// <summary>lmdb.h's <c>MDB_cursor_op</c>; only the positions the baseline uses.</summary>
internal enum LmdbCursorOp
{
    First = 0,
    GetCurrent = 4,
    Last = 6,
    Next = 8,
    Prev = 12,
    Set = 15,
    SetKey = 16,
    SetRange = 17,
}
