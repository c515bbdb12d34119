using System.Text;
using Ingest.Documents.Ids;

namespace Ingest.Documents.Tests.Ids;

/// <summary>Ids are case-insensitive (invariant simple case folding) and case-preserving.</summary>
public sealed class IdCasingTests
{
    public static TheoryData<string, string[], string[]> Cases => new()
    {
        // stored id, lookups that find it, lookups that must not
        { "Orders/ABC-1", ["orders/abc-1", "ORDERS/ABC-1", "oRdErS/aBc-1"], ["orders/abc-2", "orders/abc-1 "] },
        // Turkish: invariant casing has no dotted/dotless rules, so ı and İ are letters of their own.
        { "kullanıcı/İstanbul", ["KULLANıCı/İSTANBUL", "kullanıcı/İstanbul"], ["kullanici/istanbul", "KULLANICI/ISTANBUL"] },
        { "FILE", ["file", "File"], ["fıle", "fİle"] },
        // German sharp s: ẞ (capital) meets ß; simple folding does not expand ß to ss.
        { "Straße/1", ["STRAẞE/1", "straße/1"], ["strasse/1", "STRASSE/1"] },
        // Greek: Σ, σ and the final ς all meet.
        { "ΟΔΟΣ/1", ["οδος/1", "οδοσ/1", "ΟΔΟΣ/1", "Οδος/1"], ["οδοξ/1"] },
        // Cyrillic.
        { "Москва/Заказ", ["МОСКВА/ЗАКАЗ", "москва/заказ"], ["moskva/zakaz"] },
        // Emoji (surrogate pairs) are not letters: they must match exactly.
        { "order/🍕🎉", ["ORDER/🍕🎉"], ["order/🍕", "order/🎉🍕"] },
        // Characters whose folded UTF-8 is longer than the original (U+023A, 2 bytes -> U+2C65, 3 bytes).
        { "Ⱥ/1", ["ⱥ/1"], ["a/1"] },
        // Deseret (outside the BMP, has case).
        { "𐐀/1", ["𐐨/1"], ["x/1"] },
    };

    [Theory]
    [MemberData(nameof(Cases))]
    public void The_same_document_is_found_whatever_the_casing_and_keeps_its_original(string id, string[] found, string[] notFound)
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        store.Write(new WriteBatch().Put(id, "C", "{}"));

        foreach (var lookup in found)
        {
            var doc = store.Get(lookup);
            Assert.True(doc != null, $"'{lookup}' should find '{id}'");
            Assert.Equal(id, doc.Id);
        }

        foreach (var lookup in notFound)
        {
            Assert.True(store.Get(lookup) == null, $"'{lookup}' should not find '{id}'");
        }

        // A put with another casing replaces the same document.
        store.Write(new WriteBatch().Put(found[0], "C", "{\"v\":2}"));
        Assert.Equal(1, store.GetStats().DocumentCount);
        Assert.Equal(found[0], store.Get(id)!.Id);
        store.Write(new WriteBatch().Delete(found[^1]));
        Assert.Null(store.Get(id));
    }

    [Fact]
    public void Very_long_ids_up_to_the_limit_work_and_one_byte_more_is_rejected()
    {
        using var dir = new TestDirectory();
        using var store = dir.Open();
        var ascii = "A" + new string('b', DocumentStoreOptions.MaxIdBytes - 1);
        var wide = new string('Ⱥ', DocumentStoreOptions.MaxIdBytes / 2); // 2 UTF-8 bytes each, 3 when folded

        store.Write(new WriteBatch().Put(ascii, "C", "{}").Put(wide, "C", "{}"));

        Assert.Equal(ascii, store.Get(ascii.ToLowerInvariant())!.Id);
        Assert.Equal(wide, store.Get(new string('ⱥ', DocumentStoreOptions.MaxIdBytes / 2))!.Id);
        Assert.Throws<InvalidDocumentException>(() => store.Write(new WriteBatch().Put(ascii + "c", "C", "{}")));
        Assert.Null(store.Get(ascii + "c"));
    }

    [Fact]
    public void The_ascii_fast_path_and_the_unicode_path_agree_on_ascii()
    {
        var rnd = new Random(7);
        Span<byte> fast = stackalloc byte[300];
        Span<byte> slow = stackalloc byte[900];
        for (var i = 0; i < 1000; i++)
        {
            var chars = new char[rnd.Next(1, 100)];
            for (var j = 0; j < chars.Length; j++)
            {
                chars[j] = (char)rnd.Next(0, 128);
            }

            var ascii = new string(chars);
            var n = IdKey.Fold(ascii, fast);
            // Appending a non-ASCII letter forces the Unicode path; its prefix must match.
            var m = IdKey.Fold(ascii + "é", slow);
            Assert.Equal(n + 2, m);
            Assert.True(fast[..n].SequenceEqual(slow[..n]));
            Assert.Equal(Encoding.ASCII.GetBytes(ascii.ToLowerInvariant()), fast[..n].ToArray());
        }
    }
}
