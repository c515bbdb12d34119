using System.Buffers.Binary;
using System.Text;
using Ingest.Storage.FixedSizeTrees;
using Ingest.Storage.Paging;
using Ingest.Storage.PostingLists;
using Ingest.Storage.Transactions;

namespace Ingest.Storage.Trees;

/// <summary>
/// The root tree maps tree names (UTF-8) to tree descriptors.
/// <code>
///  0      1        4              8
///  +------+--------+--------------+----------------+
///  | kind | unused | value size   | root page      |
///  |  u8  |        | u32 (fixed)  | u64            |
///  +------+--------+--------------+----------------+
///  kind 1 = Tree, 2 = FixedSizeTree, 3 = PostingList (a fixed-size tree from each leaf's first
///  id to its 8-byte page number); value size only for fixed-size trees and posting lists.
/// </code>
/// </summary>
internal static unsafe class TreeDirectory
{
    public const byte KindTree = 1;
    public const byte KindFixed = 2;
    public const byte KindPostingList = 3;
    private const int DescriptorSize = 16;

    private static Tree Root(PageSource pages) => new(pages, StatePage.GetRootTreePage(pages.Read(StatePage.PageNumber)), "$root");

    private static bool TryGetDescriptor(PageSource pages, string name, out byte kind, out int valueSize, out long rootPage)
    {
        ArgumentException.ThrowIfNullOrEmpty(name);
        pages.EnsureActive();
        Span<byte> key = stackalloc byte[Encoding.UTF8.GetMaxByteCount(name.Length)];
        var length = Encoding.UTF8.GetBytes(name, key);
        if (length > Tree.MaxKeySize)
        {
            throw new ArgumentException("Tree name is too long.", nameof(name));
        }

        if (!Tree.Lookup(pages, StatePage.GetRootTreePage(pages.Read(StatePage.PageNumber)), key[..length], out var value))
        {
            kind = 0;
            valueSize = 0;
            rootPage = 0;
            return false;
        }

        kind = value[0];
        valueSize = BinaryPrimitives.ReadInt32LittleEndian(value[4..]);
        rootPage = BinaryPrimitives.ReadInt64LittleEndian(value[8..]);
        return true;
    }

    public static Tree? OpenTree(PageSource pages, string name)
    {
        if (!TryGetDescriptor(pages, name, out var kind, out _, out var root))
        {
            return null;
        }

        return kind == KindTree ? new Tree(pages, root, name) : throw new InvalidOperationException($"'{name}' is not a Tree.");
    }

    public static FixedSizeTree? OpenFixedSizeTree(PageSource pages, string name)
    {
        if (!TryGetDescriptor(pages, name, out var kind, out var valueSize, out var root))
        {
            return null;
        }

        return kind == KindFixed ? new FixedSizeTree(pages, root, valueSize, name) : throw new InvalidOperationException($"'{name}' is not a FixedSizeTree.");
    }

    public static PostingList? OpenPostingList(PageSource pages, string name)
    {
        if (!TryGetDescriptor(pages, name, out var kind, out var valueSize, out var root))
        {
            return null;
        }

        return kind == KindPostingList
            ? new PostingList(new FixedSizeTree(pages, root, valueSize, name))
            : throw new InvalidOperationException($"'{name}' is not a PostingList.");
    }

    /// <summary>Every tree the directory names, in name order: (name, kind, value size).</summary>
    public static List<(string Name, byte Kind, int ValueSize)> List(PageSource pages)
    {
        pages.EnsureActive();
        var all = new List<(string, byte, int)>();
        var cursor = Root(pages).CreateCursor();
        for (var ok = cursor.First(); ok; ok = cursor.MoveNext())
        {
            var value = cursor.Value;
            all.Add((Encoding.UTF8.GetString(cursor.Key), value[0], BinaryPrimitives.ReadInt32LittleEndian(value[4..])));
        }

        return all;
    }

    public static Tree CreateTree(WriteTransaction tx, string name)
    {
        var p = tx.AllocatePage(PageType.TreeLeaf, out var root);
        TreePage.Initialize(p, root, isLeaf: true);
        Register(tx, name, KindTree, 0, root);
        return new Tree(new PageSource(tx), root, name);
    }

    public static FixedSizeTree CreateFixedSizeTree(WriteTransaction tx, string name, int valueSize)
    {
        if (valueSize < 0 || valueSize > FixedSizeTree.MaxValueSize)
        {
            throw new ArgumentOutOfRangeException(nameof(valueSize), valueSize, $"Fixed-size values are 0 to {FixedSizeTree.MaxValueSize} bytes.");
        }

        var p = tx.AllocatePage(PageType.FixedLeaf, out var root);
        FixedSizeTreePage.Initialize(p, root, isLeaf: true, valueSize);
        Register(tx, name, KindFixed, valueSize, root);
        return new FixedSizeTree(new PageSource(tx), root, valueSize, name);
    }

    public static PostingList CreatePostingList(WriteTransaction tx, string name)
    {
        var p = tx.AllocatePage(PageType.FixedLeaf, out var root);
        FixedSizeTreePage.Initialize(p, root, isLeaf: true, sizeof(long));
        Register(tx, name, KindPostingList, sizeof(long), root);
        return new PostingList(new FixedSizeTree(new PageSource(tx), root, sizeof(long), name));
    }

    private static void Register(WriteTransaction tx, string name, byte kind, int valueSize, long root)
    {
        Span<byte> descriptor = stackalloc byte[DescriptorSize];
        descriptor.Clear();
        descriptor[0] = kind;
        BinaryPrimitives.WriteInt32LittleEndian(descriptor[4..], valueSize);
        BinaryPrimitives.WriteInt64LittleEndian(descriptor[8..], root);
        Root(new PageSource(tx)).Put(Encoding.UTF8.GetBytes(name), descriptor);
    }
}
