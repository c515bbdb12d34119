using Ingest.Documents.Records;

namespace Ingest.Documents.Writing;

/// <summary>What a delete leaves: the tombstone record, with the log position that names the delete alike on every node.</summary>
internal sealed partial class TransactionWriter
{
    /// <summary>The tombstone of the live record <paramref name="value"/>: its names, and the fields <paramref name="tombstone"/> keeps; no body.</summary>
    private Span<byte> MakeTombstone(DocumentRecord header, scoped ReadOnlySpan<byte> value, Tombstone tombstone, scoped ReadOnlySpan<byte> position)
    {
        var afterNames = header.AfterNames;
        var tomb = header;
        tomb.LastModifiedTicks = _nowTicks;
        tomb.Flags = (header.Flags | (uint)DocumentFlags.Deleted) & ~(uint)(DocumentFlags.Compressed | DocumentFlags.Expires | DocumentFlags.Positioned);
        if (tombstone == Tombstone.OfExpired)
        {
            // The expired version's expiry and position: what every node that expires this version knows alike.
            var kept = value[afterNames..header.BodyOffset];
            var copy = Buffer(afterNames + kept.Length);
            value[..afterNames].CopyTo(copy);
            kept.CopyTo(copy[afterNames..]);
            tomb.Flags |= header.Flags & (uint)(DocumentFlags.Expires | DocumentFlags.Positioned);
            RecordIO.Write(copy, in tomb);
            return copy;
        }

        var withPosition = tombstone == Tombstone.Positioned;
        var result = Buffer(afterNames + (withPosition ? DocumentRecord.PositionSize : 0));
        value[..afterNames].CopyTo(result);
        if (withPosition)
        {
            position.CopyTo(result[afterNames..]);
            tomb.Flags |= (uint)DocumentFlags.Positioned;
        }

        RecordIO.Write(result, in tomb);
        return result;
    }
}
