using System.Text;
using Ingest.Indexing.Definitions;

namespace Ingest.Indexing.Tests.Definitions;

public sealed class IndexDefinitionJsonTests
{
    private const string Valid = """
        {
          "name": "Orders/ByCustomer",
          "collections": ["Orders", "ArchivedOrders"],
          "fields": [
            { "name": "Customer", "path": "Customer.Name", "type": "keyword" },
            { "name": "Sku", "path": "Lines[].Sku", "type": "Keyword", "exactCase": true },
            { "name": "Notes", "path": "Notes", "type": "text" },
            { "name": "Total", "path": "Total", "type": "number" },
            { "name": "OrderedAt", "path": "OrderedAt", "type": "datetime" },
            { "name": "Paid", "path": "Paid", "type": "bool", "exactCase": false }
          ]
        }
        """;

    [Fact]
    public void A_valid_definition_parses_into_its_fields()
    {
        var result = Parse(Valid);

        Assert.True(result.IsValid, string.Join("; ", result.Errors));
        var definition = result.Definition!;
        Assert.Equal("Orders/ByCustomer", definition.Name);
        Assert.Equal(["Orders", "ArchivedOrders"], definition.Collections);
        Assert.Equal(
            [
                new IndexFieldDefinition("Customer", "Customer.Name", IndexFieldType.Keyword),
                new IndexFieldDefinition("Sku", "Lines[].Sku", IndexFieldType.Keyword, ExactCase: true),
                new IndexFieldDefinition("Notes", "Notes", IndexFieldType.Text),
                new IndexFieldDefinition("Total", "Total", IndexFieldType.Number),
                new IndexFieldDefinition("OrderedAt", "OrderedAt", IndexFieldType.DateTime),
                new IndexFieldDefinition("Paid", "Paid", IndexFieldType.Bool),
            ],
            definition.Fields);
    }

    [Fact]
    public void A_definition_written_and_read_back_is_the_same()
    {
        var first = Parse(Valid).Definition!;

        var written = IndexDefinitionJson.ToUtf8(first);
        var second = IndexDefinitionJson.Parse(written).Definition!;

        Assert.Equal(first, second);
        Assert.Equal(first.GetHashCode(), second.GetHashCode());
        Assert.Equal(written, IndexDefinitionJson.ToUtf8(second));
    }

    [Fact]
    public void Definitions_are_equal_by_content_and_differ_on_any_change()
    {
        var definition = Parse(Valid).Definition!;
        var fields = definition.Fields.ToArray();
        fields[3] = fields[3] with { Type = IndexFieldType.Keyword };

        Assert.Equal(definition, Parse(Valid).Definition);
        Assert.NotEqual(definition, definition with { Name = "Orders/Other" });
        Assert.NotEqual(definition, definition with { Collections = ["Orders"] });
        Assert.NotEqual(definition, definition with { Fields = fields });
        Assert.NotEqual(definition, definition with { Fields = [.. definition.Fields.Reverse()] });
    }

    [Fact]
    public void The_written_form_is_camel_case_with_lower_case_types_and_exact_case_only_where_set()
    {
        var written = Encoding.UTF8.GetString(IndexDefinitionJson.ToUtf8(new IndexDefinition(
            "Orders",
            ["Orders"],
            [new IndexFieldDefinition("At", "OrderedAt", IndexFieldType.DateTime), new IndexFieldDefinition("Sku", "Sku", IndexFieldType.Keyword, true)])));

        Assert.Equal(
            """{"name":"Orders","collections":["Orders"],"fields":[{"name":"At","path":"OrderedAt","type":"datetime"},{"name":"Sku","path":"Sku","type":"keyword","exactCase":true}]}""",
            written);
    }

    [Fact]
    public void The_name_may_come_from_the_route_alone()
    {
        var result = IndexDefinitionJson.Parse("""{"collections":["Orders"],"fields":[{"name":"S","path":"S","type":"keyword"}]}"""u8, "Orders/ByS");

        Assert.Equal("Orders/ByS", result.Definition?.Name);
    }

    [Fact]
    public void A_body_name_different_from_the_route_is_an_error()
    {
        var result = IndexDefinitionJson.Parse("""{"name":"A","collections":["Orders"],"fields":[{"name":"S","path":"S","type":"keyword"}]}"""u8, "B");

        AssertSingleError(result, "name", "the body names index 'A' but the URL names 'B'");
    }

    [Fact]
    public void An_unknown_type_names_the_field_and_the_expected_types()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"name":"Total","path":"Total","type":"numbr"}]}""");

        AssertSingleError(result, "fields[0].type", "field 'Total' has unknown type 'numbr'; expected one of keyword, text, number, datetime, bool");
    }

    [Fact]
    public void A_missing_type_is_an_error()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"name":"Total","path":"Total"}]}""");

        AssertSingleError(result, "fields[0].type", "field 'Total' has no type; expected one of keyword, text, number, datetime, bool");
    }

    [Fact]
    public void A_malformed_path_names_the_field_and_the_position()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"name":"Product","path":"Lines].Product","type":"keyword"}]}""");

        AssertSingleError(result, "fields[0].path", "field 'Product' has a malformed path 'Lines].Product': unexpected ']' at 5");
    }

    [Fact]
    public void A_missing_path_is_an_error()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"name":"Product","type":"keyword"}]}""");

        AssertSingleError(result, "fields[0].path", "field 'Product' has no path");
    }

    [Fact]
    public void Duplicate_field_names_are_an_error_regardless_of_case()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"name":"Status","path":"A","type":"keyword"},{"name":"status","path":"B","type":"keyword"}]}""");

        AssertSingleError(result, "fields[1].name", "field 'status' has the same name as fields[0] 'Status'; field names are case-insensitive");
    }

    [Fact]
    public void A_field_without_a_name_is_an_error()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"path":"A","type":"keyword"}]}""");

        AssertSingleError(result, "fields[0].name", "field 0 has no name");
    }

    [Fact]
    public void A_null_field_is_an_error()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[null]}""");

        AssertSingleError(result, "fields[0]", "field 0 must be an object");
    }

    [Fact]
    public void Exact_case_on_a_field_that_is_not_a_keyword_is_an_error()
    {
        var result = Parse("""{"name":"I","collections":["C"],"fields":[{"name":"Notes","path":"Notes","type":"text","exactCase":true}]}""");

        AssertSingleError(result, "fields[0].exactCase", "field 'Notes' is of type text; exactCase applies only to keyword fields");
    }

    [Fact]
    public void No_collections_is_an_error()
    {
        AssertSingleError(Parse("""{"name":"I","collections":[],"fields":[{"name":"S","path":"S","type":"keyword"}]}"""), "collections", "at least one collection is required");
        AssertSingleError(Parse("""{"name":"I","fields":[{"name":"S","path":"S","type":"keyword"}]}"""), "collections", "at least one collection is required");
    }

    [Fact]
    public void Empty_and_repeated_collections_are_errors()
    {
        var result = Parse("""{"name":"I","collections":["Orders"," ","orders"],"fields":[{"name":"S","path":"S","type":"keyword"}]}""");

        Assert.Equal(
            [
                new IndexDefinitionError("collections[1]", "a collection name must not be empty"),
                new IndexDefinitionError("collections[2]", "collection 'orders' is listed twice"),
            ],
            result.Errors);
    }

    [Fact]
    public void No_fields_is_an_error()
    {
        AssertSingleError(Parse("""{"name":"I","collections":["C"],"fields":[]}"""), "fields", "at least one field is required");
        AssertSingleError(Parse("""{"name":"I","collections":["C"]}"""), "fields", "at least one field is required");
    }

    [Theory]
    [InlineData("", "the index needs a name")]
    [InlineData("Orders by status", "index name 'Orders by status' has ' ' at 6; allowed are ASCII letters, digits, '/', '-', '_' and '.'")]
    [InlineData("Orders\\x", "index name 'Orders\\x' has '\\' at 6; allowed are ASCII letters, digits, '/', '-', '_' and '.'")]
    [InlineData("Bestellungen/Größe", "index name 'Bestellungen/Größe' has 'ö' at 15; allowed are ASCII letters, digits, '/', '-', '_' and '.'")]
    [InlineData("../etc", "index name '../etc' has a '..' part")]
    [InlineData("Orders/./x", "index name 'Orders/./x' has a '.' part")]
    [InlineData("/Orders", "index name '/Orders' has an empty part between '/' (leading, trailing or doubled '/')")]
    [InlineData("Orders//x", "index name 'Orders//x' has an empty part between '/' (leading, trailing or doubled '/')")]
    [InlineData("Orders/", "index name 'Orders/' has an empty part between '/' (leading, trailing or doubled '/')")]
    public void Unsafe_index_names_are_errors(string name, string message)
    {
        var result = Parse($$"""{"name":"{{name.Replace("\\", "\\\\", StringComparison.Ordinal)}}","collections":["C"],"fields":[{"name":"S","path":"S","type":"keyword"}]}""");

        AssertSingleError(result, "name", message);
    }

    [Fact]
    public void Index_names_longer_than_the_limit_are_errors()
    {
        var name = new string('a', IndexDefinitionValidator.MaxIndexNameLength + 1);

        AssertSingleError(Parse($$"""{"name":"{{name}}","collections":["C"],"fields":[{"name":"S","path":"S","type":"keyword"}]}"""), "name", "index name is 129 characters long; the limit is 128");
        Assert.True(Parse($$"""{"name":"{{name[1..]}}","collections":["C"],"fields":[{"name":"S","path":"S","type":"keyword"}]}""").IsValid);
    }

    [Theory]
    [InlineData("Orders")]
    [InlineData("Orders/ByStatus")]
    [InlineData("orders-by_status.v2")]
    [InlineData("a...b")]
    public void Safe_index_names_are_accepted(string name)
    {
        Assert.True(Parse($$"""{"name":"{{name}}","collections":["C"],"fields":[{"name":"S","path":"S","type":"keyword"}]}""").IsValid);
    }

    [Fact]
    public void Every_problem_is_reported_at_once()
    {
        var result = Parse("""
            {"name":"a b","collections":[],"fields":[
              {"name":"X","path":"A..B","type":"keyword"},
              {"name":"x","path":"C","type":"nope"},
              {"path":"D","type":"bool","exactCase":true}]}
            """);

        Assert.Equal(
            [
                "fields[1].type",
                "name",
                "collections",
                "fields[0].path",
                "fields[1].name",
                "fields[2].name",
                "fields[2].exactCase",
            ],
            result.Errors.Select(e => e.Field));
        Assert.Null(result.Definition);
    }

    [Fact]
    public void Malformed_json_is_one_error_with_its_line()
    {
        var result = Parse("{\"name\":\"I\",\n\"collections\":[\"C\"");

        var error = Assert.Single(result.Errors);
        Assert.StartsWith("malformed JSON at line 2", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void An_unknown_member_is_an_error_naming_it()
    {
        var result = Parse("""{"name":"I","colections":["C"],"fields":[{"name":"S","path":"S","type":"keyword"}]}""");

        var error = Assert.Single(result.Errors);
        Assert.Contains("colections", error.Field, StringComparison.Ordinal);
        Assert.StartsWith("unknown member at", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void A_member_of_the_wrong_json_type_is_an_error_naming_it()
    {
        var result = Parse("""{"name":"I","collections":"C","fields":[{"name":"S","path":"S","type":"keyword"}]}""");

        var error = Assert.Single(result.Errors);
        Assert.Equal("$.collections", error.Field);
        Assert.StartsWith("$.collections has the wrong JSON type", error.Message, StringComparison.Ordinal);
    }

    [Fact]
    public void Json_null_is_an_error()
    {
        AssertSingleError(Parse("null"), "$", "the definition must be a JSON object, not null");
    }

    [Fact]
    public void A_hand_made_definition_is_validated_the_same_way()
    {
        var errors = IndexDefinitionValidator.Validate(new IndexDefinition(
            "Orders",
            ["Orders"],
            [new IndexFieldDefinition("S", "S[", IndexFieldType.Keyword), new IndexFieldDefinition("T", "T", (IndexFieldType)42)]));

        Assert.Equal(
            [
                new IndexDefinitionError("fields[0].path", "field 'S' has a malformed path 'S[': expected ']' at 2"),
                new IndexDefinitionError("fields[1].type", "field 'T' has unknown type 42; expected one of keyword, text, number, datetime, bool"),
            ],
            errors);
    }

    private static IndexDefinitionResult Parse(string json) => IndexDefinitionJson.Parse(Encoding.UTF8.GetBytes(json));

    private static void AssertSingleError(IndexDefinitionResult result, string field, string message)
    {
        Assert.False(result.IsValid);
        Assert.Equal(new IndexDefinitionError(field, message), Assert.Single(result.Errors));
    }
}
