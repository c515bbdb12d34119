namespace Ingest.Documents.Writing;

internal enum OperationKind : byte
{
    Put,
    Delete,
    SourcePosition,
    DeadLetter,
    DeleteDeadLetter,
}
