using System.Text;
using Ingest.Indexing.Definitions;
using Ingest.Indexing.Terms;

namespace Ingest.Indexing.Tests.Extraction;

/// <summary>How a path reaches values: nesting, arrays, missing and null steps, and values of the wrong shape.</summary>
public sealed class PathWalkTests
{
    [Fact]
    public void A_nested_property_gives_its_value()
    {
        var extracted = Extracted.From("""{"Id":1,"Customer":{"Id":7,"Name":"Acme"},"Name":"not this"}""", "Customer.Name", IndexFieldType.Keyword);

        Assert.Equal(["acme"], extracted.Strings);
        Assert.Equal((0, 0), (extracted.Result.NullCount, extracted.Result.WrongTypeCount));
    }

    [Fact]
    public void An_array_gives_one_term_per_element_in_order_with_repeats()
    {
        var extracted = Extracted.From("""{"Tags":["b","A","b"]}""", "Tags[]", IndexFieldType.Keyword);

        Assert.Equal(["b", "a", "b"], extracted.Strings);
        Assert.False(extracted.Result.IsNull);
    }

    [Fact]
    public void A_property_of_array_elements_gives_one_term_per_element()
    {
        var extracted = Extracted.From(
            """{"Lines":[{"Product":"Tea","Qty":1},{"Qty":2},{"Product":null},{"Product":"Cake"}]}""",
            "Lines[].Product",
            IndexFieldType.Keyword);

        Assert.Equal(["tea", "cake"], extracted.Strings);
        Assert.Equal(2, extracted.Result.NullCount); // one line without Product, one with null
    }

    [Fact]
    public void Nested_arrays_are_walked_to_every_leaf()
    {
        var extracted = Extracted.From(
            """{"A":[{"B":[{"C":"x1"},{"C":"x2"}]},{"B":[]},{"B":[{"C":"y1"}]}]}""",
            "A[].B[].C",
            IndexFieldType.Keyword);

        Assert.Equal(["x1", "x2", "y1"], extracted.Strings);
        Assert.Equal(0, extracted.Result.NullCount);
    }

    [Fact]
    public void An_array_of_arrays_is_walked_with_two_element_steps()
    {
        var extracted = Extracted.From("""{"M":[[1,2],[3],[]]}""", "M[][]", IndexFieldType.Number);

        Assert.Equal([1.0, 2.0, 3.0], extracted.Terms.Select(t => NumberTerm.Read(t)));
    }

    [Fact]
    public void A_missing_property_is_null()
    {
        var extracted = Extracted.From("""{"Other":"x"}""", "Status", IndexFieldType.Keyword);

        Assert.Empty(extracted.Terms);
        Assert.Equal(1, extracted.Result.NullCount);
        Assert.True(extracted.Result.IsNull);
    }

    [Fact]
    public void A_null_value_is_null()
    {
        var extracted = Extracted.From("""{"Status":null}""", "Status", IndexFieldType.Keyword);

        Assert.Empty(extracted.Terms);
        Assert.True(extracted.Result.IsNull);
        Assert.Equal(0, extracted.Result.WrongTypeCount);
    }

    [Fact]
    public void A_null_or_missing_step_on_the_way_is_null()
    {
        Assert.True(Extracted.From("""{"Customer":null}""", "Customer.Name", IndexFieldType.Keyword).Result.IsNull);
        Assert.True(Extracted.From("""{"Customer":{}}""", "Customer.Name", IndexFieldType.Keyword).Result.IsNull);
        Assert.True(Extracted.From("""{}""", "Lines[].Product", IndexFieldType.Keyword).Result.IsNull);
        Assert.True(Extracted.From("""{"Lines":null}""", "Lines[].Product", IndexFieldType.Keyword).Result.IsNull);
    }

    [Fact]
    public void Null_array_elements_are_null()
    {
        var extracted = Extracted.From("""{"Tags":["a",null]}""", "Tags[]", IndexFieldType.Keyword);

        Assert.Equal(["a"], extracted.Strings);
        Assert.Equal(1, extracted.Result.NullCount);
    }

    [Fact]
    public void An_empty_array_gives_no_terms_and_is_not_null()
    {
        var extracted = Extracted.From("""{"Tags":[]}""", "Tags[]", IndexFieldType.Keyword);

        Assert.Empty(extracted.Terms);
        Assert.Equal((0, 0), (extracted.Result.NullCount, extracted.Result.WrongTypeCount));
    }

    [Theory]
    [InlineData("""{"Customer":"Acme"}""", "Customer.Name")] // a scalar where an object is wanted
    [InlineData("""{"Customer":["Acme"]}""", "Customer.Name")] // an array where an object is wanted
    [InlineData("""{"Tags":"a"}""", "Tags[]")] // a scalar where an array is wanted
    [InlineData("""{"Tags":{"a":1}}""", "Tags[]")] // an object where an array is wanted
    [InlineData("""{"Tags":["a","b"]}""", "Tags")] // an array where a value is wanted: the path is Tags[]
    [InlineData("""{"Customer":{"Name":"Acme"}}""", "Customer")] // an object where a value is wanted
    [InlineData("""["a"]""", "Status")] // the document itself is not an object
    public void A_value_of_the_wrong_shape_is_skipped_and_counted(string json, string path)
    {
        var extracted = Extracted.From(json, path, IndexFieldType.Keyword);

        Assert.Empty(extracted.Terms);
        Assert.Equal(1, extracted.Result.WrongTypeCount);
        Assert.False(extracted.Result.IsNull);
    }

    [Fact]
    public void Wrong_types_among_array_elements_are_each_counted_and_the_rest_indexed()
    {
        var extracted = Extracted.From("""{"Tags":["a",5,true,{"x":"y"},["z"],"b"]}""", "Tags[]", IndexFieldType.Keyword);

        Assert.Equal(["a", "b"], extracted.Strings);
        Assert.Equal(4, extracted.Result.WrongTypeCount);
    }

    [Fact]
    public void Skipped_siblings_with_nested_values_do_not_confuse_the_walk()
    {
        var extracted = Extracted.From(
            """{"Before":{"Name":"no","Deep":[[{"Name":"no"}]]},"Customer":{"Other":[1,{"Name":"no"}],"Name":"Yes"},"After":{"Name":"no"}}""",
            "Customer.Name",
            IndexFieldType.Keyword);

        Assert.Equal(["yes"], extracted.Strings);
    }

    [Fact]
    public void Every_property_of_a_repeated_name_is_visited()
    {
        var extracted = Extracted.From("""{"Status":"a","Status":"B"}""", "Status", IndexFieldType.Keyword);

        Assert.Equal(["a", "b"], extracted.Strings);
    }

    [Fact]
    public void Property_names_match_exactly_and_through_json_escapes()
    {
        Assert.Equal(["x"], Extracted.From("""{"N\u0061me":"x"}""", "Name", IndexFieldType.Keyword).Strings);
        Assert.True(Extracted.From("""{"name":"x"}""", "Name", IndexFieldType.Keyword).Result.IsNull);
        Assert.Equal(["z"], Extracted.From("""{"Ship to":{"Zip.Code":"Z"}}""", "\"Ship to\".\"Zip.Code\"", IndexFieldType.Keyword).Strings);
    }

    [Fact]
    public void A_malformed_document_keeps_no_terms_and_leaves_earlier_terms_alone()
    {
        using var buffer = new TermBuffer();
        var good = Extracted.From(Encoding.UTF8.GetBytes("""{"Tags":["keep"]}"""), "Tags[]", IndexFieldType.Keyword, false, buffer);

        var bad = Extracted.From(Encoding.UTF8.GetBytes("""{"Tags":["lost", }"""), "Tags[]", IndexFieldType.Keyword, false, buffer);

        Assert.True(bad.Result.Malformed);
        Assert.Equal((0, 1), (bad.Result.TermCount, bad.Result.WrongTypeCount));
        Assert.Equal(1, buffer.Count);
        Assert.Equal("keep"u8.ToArray(), buffer[0].ToArray());
        Assert.False(good.Result.Malformed);
    }

    [Fact]
    public void An_empty_document_is_malformed()
    {
        Assert.True(Extracted.From("", "Status", IndexFieldType.Keyword).Result.Malformed);
    }
}
