using System.Text;
using System.Text.Json;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Extraction;
using Ingest.Indexing.Terms;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Extraction;

public sealed class DocumentExtractorTests(ITestOutputHelper output)
{
    private static readonly string[] Paths = ["A", "A.B", "A.B.C", "A[]", "A[].B", "A[].B[].C", "B[][]", "Tags[]", "C.A", "A.B", "\"A\".\"B\""];

    private static readonly CompiledIndexField[] Fields =
    [
        .. Paths.SelectMany(path => Enum.GetValues<IndexFieldType>().Select(type => Compile(path, type))),
        .. Paths.Select(path => Compile(path, IndexFieldType.Keyword, exactCase: true)),
    ];

    [Fact]
    public void One_pass_gives_every_field_what_extracting_it_alone_gives() => TestSeed.Run(seed =>
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var random = new Random(seed);
        var extractor = new DocumentExtractor(Fields);
        using var onePass = new TermBuffer();
        using var alone = new TermBuffer();
        var tallies = new FieldTally[Fields.Length];
        for (var d = 0; d < 2000 * TestSeed.Scale; d++)
        {
            var document = RandomDocument(random);
            onePass.Clear();
            var wellFormed = extractor.Extract(document, onePass, tallies);
            Assert.True(wellFormed);
            for (var f = 0; f < Fields.Length; f++)
            {
                alone.Clear();
                var expected = FieldExtractor.Extract(document, Fields[f], alone);
                var context = $"document {Encoding.UTF8.GetString(document)}, field {f} '{Fields[f].Path}' {Fields[f].Type}";
                Assert.True(
                    (expected.TermCount, expected.NullCount, expected.WrongTypeCount) == (tallies[f].TermCount, tallies[f].NullCount, tallies[f].WrongTypeCount),
                    $"{context}: alone {expected}, one pass {tallies[f].TermCount}/{tallies[f].NullCount}/{tallies[f].WrongTypeCount}");
                var onePassTerms = Enumerable.Range(0, onePass.Count).Where(i => onePass.FieldOf(i) == f).Select(i => Convert.ToHexString(onePass[i]));
                var aloneTerms = Enumerable.Range(0, alone.Count).Select(i => Convert.ToHexString(alone[i]));
                Assert.True(aloneTerms.SequenceEqual(onePassTerms), context);
            }
        }
    });

    [Fact]
    public void Terms_are_tagged_with_their_field_and_each_field_tallied()
    {
        var extractor = new DocumentExtractor([Compile("Customer.Name", IndexFieldType.Keyword), Compile("Tags[]", IndexFieldType.Keyword), Compile("Customer.Id", IndexFieldType.Number)]);
        using var terms = new TermBuffer();
        var tallies = new FieldTally[3];

        Assert.True(extractor.Extract("""{"Tags":["x",1],"Customer":{"Name":"Acme"}}"""u8, terms, tallies));

        Assert.Equal([(1, "x"), (0, "acme")], Enumerable.Range(0, terms.Count).Select(i => (terms.FieldOf(i), Encoding.UTF8.GetString(terms[i]))));
        Assert.Equal((1, 0, 0), (tallies[0].TermCount, tallies[0].NullCount, tallies[0].WrongTypeCount));
        Assert.Equal((1, 0, 1), (tallies[1].TermCount, tallies[1].NullCount, tallies[1].WrongTypeCount));
        Assert.True(tallies[2].IsNull);
    }

    [Fact]
    public void A_malformed_document_keeps_no_terms_and_counts_a_wrong_type_for_every_field()
    {
        var extractor = new DocumentExtractor([Compile("A", IndexFieldType.Keyword), Compile("B", IndexFieldType.Keyword)]);
        using var terms = new TermBuffer();
        terms.Add("earlier"u8);
        var tallies = new FieldTally[2];

        Assert.False(extractor.Extract("""{"A":"x","B":"""u8, terms, tallies));

        Assert.Equal(1, terms.Count);
        Assert.All(tallies, t => Assert.Equal((0, 0, 1), (t.TermCount, t.NullCount, t.WrongTypeCount)));
    }

    private static byte[] RandomDocument(Random random)
    {
        using var stream = new MemoryStream();
        using (var writer = new Utf8JsonWriter(stream))
        {
            if (random.Next(50) == 0)
            {
                WriteValue(writer, random, depth: 3); // now and then a document that is not an object
            }
            else
            {
                WriteObject(writer, random, depth: 0);
            }
        }

        return stream.ToArray();
    }

    private static void WriteObject(Utf8JsonWriter writer, Random random, int depth)
    {
        writer.WriteStartObject();
        var count = random.Next(5);
        for (var i = 0; i < count; i++)
        {
            writer.WritePropertyName(random.Next(6) switch { 0 => "A", 1 => "B", 2 => "C", 3 => "Tags", 4 => "a", _ => "Other" });
            WriteValue(writer, random, depth + 1);
        }

        writer.WriteEndObject();
    }

    private static void WriteValue(Utf8JsonWriter writer, Random random, int depth)
    {
        switch (random.Next(depth >= 4 ? 4 : 7))
        {
            case 0:
                writer.WriteStringValue(random.Next(6) switch
                {
                    0 => "Ábc DEF",
                    1 => "2024-03-01T14:00:00+02:00",
                    2 => "",
                    3 => "\"quoted\" words, more",
                    4 => "2024-03-01",
                    _ => "x",
                });
                break;
            case 1:
                if (random.Next(2) == 0)
                {
                    writer.WriteNumberValue(random.NextInt64(-1_000_000_000_000, 1_000_000_000_000));
                }
                else
                {
                    writer.WriteNumberValue(random.NextDouble() * 1000);
                }

                break;
            case 2:
                writer.WriteBooleanValue(random.Next(2) == 0);
                break;
            case 3:
                writer.WriteNullValue();
                break;
            case 4:
            case 5:
                WriteObject(writer, random, depth);
                break;
            default:
                writer.WriteStartArray();
                var count = random.Next(4);
                for (var i = 0; i < count; i++)
                {
                    WriteValue(writer, random, depth + 1);
                }

                writer.WriteEndArray();
                break;
        }
    }

    private static CompiledIndexField Compile(string path, IndexFieldType type, bool exactCase = false) =>
        CompiledIndexField.Compile(new IndexFieldDefinition(path, path, type, exactCase));
}
