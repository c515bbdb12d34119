using Ingest.Indexing.Definitions;
using Ingest.Server.Indexes;

namespace Ingest.Server.Tests.Indexes;

public sealed class ConfiguredIndexesOptionsTests
{
    [Fact]
    public void A_declaration_becomes_the_definition_a_put_of_the_same_json_would_make()
    {
        var options = new ConfiguredIndexesOptions
        {
            Indexes =
            [
                new ConfiguredIndex
                {
                    Name = "Orders/BySku",
                    Collections = ["Orders", "Archive"],
                    Fields = [new ConfiguredIndexField { Name = "Sku", Path = "lines[].sku", Type = "KEYWORD", ExactCase = true }],
                },
            ],
        };

        var definition = Assert.Single(options.ToDefinitions());

        Assert.Equal(
            new IndexDefinition("Orders/BySku", ["Orders", "Archive"], [new IndexFieldDefinition("Sku", "lines[].sku", IndexFieldType.Keyword, ExactCase: true)]),
            definition);
        Assert.Empty(options.Validate());
    }

    [Fact]
    public void Every_problem_of_every_declaration_is_named_by_its_setting()
    {
        var options = new ConfiguredIndexesOptions
        {
            Indexes =
            [
                new ConfiguredIndex { Name = "A", Collections = ["C"], Fields = [new ConfiguredIndexField { Name = "Total", Path = "total", Type = "number", ExactCase = true }] },
                new ConfiguredIndex { Collections = ["C", "c"], Fields = [new ConfiguredIndexField { Name = "X", Type = "keyword" }] },
            ],
        };

        var errors = options.Validate();

        Assert.Equal(
            [
                "Ingest:Indexes:0:Fields:0:ExactCase: field 'Total' is of type number; exactCase applies only to keyword fields.",
                "Ingest:Indexes:1:Name: the index needs a name.",
                "Ingest:Indexes:1:Collections:1: collection 'c' is listed twice.",
                "Ingest:Indexes:1:Fields:0:Path: field 'X' has no path.",
            ],
            errors);
        Assert.Contains("Ingest:Indexes:1:Name", Assert.Throws<InvalidOperationException>(() => options.ToDefinitions()).Message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData("name", "Ingest:Indexes:2:Name")]
    [InlineData("fields[10].exactCase", "Ingest:Indexes:2:Fields:10:ExactCase")]
    [InlineData("$", "Ingest:Indexes:2")]
    [InlineData("$.fields[0]", "Ingest:Indexes:2:Fields:0")]
    public void A_place_in_the_definition_body_maps_to_its_setting(string field, string setting) =>
        Assert.Equal(setting, ConfiguredIndexesOptions.SettingOf(2, field));
}
