using System.Buffers.Binary;
using Ingest.Storage.Trees;

namespace Ingest.Indexing.Storage;

public sealed partial class IndexReader
{
    /// <summary>
    /// The terms of one field in unsigned byte order (the value order of every encoding, see Terms/), each with its
    /// entries: what facets and group keys walk instead of reading documents. Valid while its reader is.
    /// <code>
    /// var terms = reader.EnumerateTerms(field);
    /// while (terms.MoveNext()) { ids.Clear(); terms.AppendEntries(ids); ... terms.Term ... }
    /// while (terms.MoveNext()) { terms.VisitEntries(ref sink); ... }   // sink.Add(chunk) per ascending chunk
    /// </code>
    /// </summary>
    public sealed class TermEnumerator
    {
        private readonly IndexReader _reader;
        private readonly TreeCursor _cursor;
        private readonly byte[] _start = new byte[Tree.MaxKeySize];
        private readonly ushort _field;
        private int _startLength;
        private bool _started;
        private bool _onTerm;

        internal TermEnumerator(IndexReader reader, int field)
        {
            _reader = reader;
            _field = checked((ushort)field);
            _cursor = reader._terms.CreateCursor();
            _startLength = IndexLayout.TermKey(field, [], _start);
        }

        /// <summary>The current term, encoded as extraction encodes it (without the field number).</summary>
        public ReadOnlySpan<byte> Term => _onTerm
            ? _cursor.Key[IndexLayout.FieldPrefixSize..]
            : throw new InvalidOperationException("The enumerator is not on a term.");

        /// <summary>Makes the next <see cref="MoveNext"/> go to the first term at or after <paramref name="from"/>.</summary>
        public void Seek(ReadOnlySpan<byte> from)
        {
            _startLength = IndexLayout.TermKey(_field, from[..Math.Min(from.Length, Terms.TermLimits.MaxTermBytes)], _start);
            _started = false;
            _onTerm = false;
        }

        /// <summary>Moves to the next term of the field; false after the last one.</summary>
        public bool MoveNext()
        {
            var ok = _started ? _onTerm && _cursor.MoveNext() : _cursor.Seek(_start.AsSpan(0, _startLength));
            _started = true;
            _onTerm = ok && BinaryPrimitives.ReadUInt16BigEndian(_cursor.Key) == _field;
            return _onTerm;
        }

        /// <summary>Appends the current term's entries to <paramref name="result"/>, ascending (none when its spilled list emptied).</summary>
        public void AppendEntries(List<long> result)
        {
            ArgumentNullException.ThrowIfNull(result);
            if (!_onTerm)
            {
                throw new InvalidOperationException("The enumerator is not on a term.");
            }

            _reader.AppendIds(_cursor.Value, result);
        }

        /// <summary>
        /// Hands the current term's entries to <paramref name="sink"/> in ascending chunks, a spilled list one block
        /// at a time: a caller that only looks each entry up never copies a posting list of hundreds of thousands of
        /// entries into a list (which grew on the large object heap on every query).
        /// </summary>
        public void VisitEntries<TSink>(ref TSink sink)
            where TSink : IEntrySink, allows ref struct
        {
            if (!_onTerm)
            {
                throw new InvalidOperationException("The enumerator is not on a term.");
            }

            _reader.VisitIds(_cursor.Value, ref sink);
        }
    }
}
