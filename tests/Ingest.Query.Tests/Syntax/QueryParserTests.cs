using Ingest.Query.Syntax;

namespace Ingest.Query.Tests.Syntax;

/// <summary>Every construct of the language: the tree it parses to (positions aside) and its canonical text.</summary>
public sealed class QueryParserTests
{
    public static TheoryData<string, string, string> Conditions => new()
    {
        // query text after "from O where ", dump of the condition, canonical text
        { "A = 1", "(Equal @«A» n:1=1)", "A = 1" },
        { "A != 'x'", "(NotEqual @«A» s:«x»)", "A != 'x'" },
        { "A < 1 or A <= 2 or A > 3 or A >= 4", "(or (or (Less @«A» n:1=1) (LessOrEqual @«A» n:2=2)) (or (Greater @«A» n:3=3) (GreaterOrEqual @«A» n:4=4)))", "A < 1 or A <= 2 or A > 3 or A >= 4" },
        { "A between -1 and 2.5", "(between @«A» n:-1=-1 n:2.5=2.5)", "A between -1 and 2.5" },
        { "A in ('a', 1, true, false, null, $p)", "(in @«A» s:«a» n:1=1 true false null $«p»)", "A in ('a', 1, true, false, null, $p)" },
        { "A = null and B != null", "(and (Equal @«A» null) (NotEqual @«B» null))", "A = null and B != null" },
        { "startsWith(Customer, 'ac') and search(Notes, 'late delivery') and exists(Discount)", "(and (and (startsWith @«Customer» s:«ac») (search @«Notes» s:«late delivery»)) (exists @«Discount»))", "startsWith(Customer, 'ac') and search(Notes, 'late delivery') and exists(Discount)" },

        // Precedence: not > and > or; parentheses override.
        { "not A = 1 and B = 2", "(and (not (Equal @«A» n:1=1)) (Equal @«B» n:2=2))", "not A = 1 and B = 2" },
        { "A = 1 or B = 2 and C = 3", "(or (Equal @«A» n:1=1) (and (Equal @«B» n:2=2) (Equal @«C» n:3=3)))", "A = 1 or B = 2 and C = 3" },
        { "(A = 1 or B = 2) and C = 3", "(and (or (Equal @«A» n:1=1) (Equal @«B» n:2=2)) (Equal @«C» n:3=3))", "(A = 1 or B = 2) and C = 3" },
        { "not (A = 1 or B = 2)", "(not (or (Equal @«A» n:1=1) (Equal @«B» n:2=2)))", "not (A = 1 or B = 2)" },
        { "not not A = 1", "(not (not (Equal @«A» n:1=1)))", "not not A = 1" },
        { "((A = 1))", "(Equal @«A» n:1=1)", "A = 1" },

        // Chains are balanced; a parenthesized same-operator group keeps its own shape.
        { "A = 1 and A = 2 and A = 3 and A = 4 and A = 5", "(and (and (and (Equal @«A» n:1=1) (Equal @«A» n:2=2)) (Equal @«A» n:3=3)) (and (Equal @«A» n:4=4) (Equal @«A» n:5=5)))", "A = 1 and A = 2 and A = 3 and A = 4 and A = 5" },
        { "A = 1 and (A = 2 and A = 3)", "(and (Equal @«A» n:1=1) (and (Equal @«A» n:2=2) (Equal @«A» n:3=3)))", "A = 1 and (A = 2 and A = 3)" },
        { "(A = 1 and A = 2) and A = 3", "(and (and (Equal @«A» n:1=1) (Equal @«A» n:2=2)) (Equal @«A» n:3=3))", "A = 1 and A = 2 and A = 3" },

        // Keywords and functions in any case.
        { "a = 1 AND NOT b = 2 Or c BETWEEN 1 AnD 2 OR d IN (TRUE, False, NULL) or STARTSWITH(e, 'x') or Exists(f) or SEARCH(g, 'y')", "(or (or (or (and (Equal @«a» n:1=1) (not (Equal @«b» n:2=2))) (between @«c» n:1=1 n:2=2)) (in @«d» true false null)) (or (or (startsWith @«e» s:«x») (exists @«f»)) (search @«g» s:«y»)))", "a = 1 and not b = 2 or c between 1 and 2 or d in (true, false, null) or startsWith(e, 'x') or exists(f) or search(g, 'y')" },

        // Paths: quoted names, backticks, arrays, keywords after a dot, Unicode.
        { "\"Ship to\".Zip = 'x'", "(Equal @«\"Ship to\".Zip» s:«x»)", "\"Ship to\".Zip = 'x'" },
        { "`Ship to`.`Zip` = 'x'", "(Equal @«\"Ship to\".Zip» s:«x»)", "\"Ship to\".Zip = 'x'" },
        { "\"Customer\".\"Name\" = 'x'", "(Equal @«Customer.Name» s:«x»)", "Customer.Name = 'x'" },
        { "Lines[].Sku = 'x'", "(Equal @«Lines[].Sku» s:«x»)", "Lines[].Sku = 'x'" },
        { "Lines [ ] . Sku = 'x'", "(Equal @«Lines[].Sku» s:«x»)", "Lines[].Sku = 'x'" },
        { "Matrix[][] = 1", "(Equal @«Matrix[][]» n:1=1)", "Matrix[][] = 1" },
        { "\"a\\\"b\\\\c\" = 1", "(Equal @«\"a\\\"b\\\\c\"» n:1=1)", "\"a\\\"b\\\\c\" = 1" },
        { "`a.b`[].c = 1", "(Equal @«\"a.b\"[].c» n:1=1)", "\"a.b\"[].c = 1" },
        { "Customer.order = 1", "(Equal @«Customer.order» n:1=1)", "Customer.\"order\" = 1" },
        { "\"order\" = 1", "(Equal @«order» n:1=1)", "\"order\" = 1" },
        { "Straße = 'x' and 名前 = 'y' and _x = 1 and @meta = 2 and e\u0301 = 3 and x1 = 4", "(and (and (and (Equal @«Straße» s:«x») (Equal @«名前» s:«y»)) (Equal @«_x» n:1=1)) (and (and (Equal @«@meta» n:2=2) (Equal @«e\u0301» n:3=3)) (Equal @«x1» n:4=4)))", "Straße = 'x' and 名前 = 'y' and _x = 1 and @meta = 2 and e\u0301 = 3 and x1 = 4" },
        { "\"1st\" = 1", "(Equal @«1st» n:1=1)", "\"1st\" = 1" },

        // The document id: id(), a bare Id in any case; a property called Id is quoted.
        { "id() = 'orders/1'", "(Equal #id s:«orders/1»)", "id() = 'orders/1'" },
        { "Id = 'a' or id = 'b' or ID in ('c') or startsWith(Id, 'd')", "(or (or (Equal #id s:«a») (Equal #id s:«b»)) (or (in #id s:«c») (startsWith #id s:«d»)))", "id() = 'a' or id() = 'b' or id() in ('c') or startsWith(id(), 'd')" },
        { "\"Id\" = 1", "(Equal @«Id» n:1=1)", "\"Id\" = 1" },
        { "Id.Value = 1 and Id[] = 2", "(and (Equal @«Id.Value» n:1=1) (Equal @«Id[]» n:2=2))", "Id.Value = 1 and Id[] = 2" },

        // Strings and numbers.
        { "A = 'it''s' or A = '' or A = '''' or A = 'a\nb' or A = 'ü😀'", "(or (or (or (Equal @«A» s:«it's») (Equal @«A» s:«»)) (Equal @«A» s:«'»)) (or (Equal @«A» s:«a\nb») (Equal @«A» s:«ü😀»)))", "A = 'it''s' or A = '' or A = '''' or A = 'a\nb' or A = 'ü😀'" },
        { "A in (0, -0, -12.5e3, 1E+2, 2e-3, 0.125)", "(in @«A» n:0=0 n:-0=-0 n:-12.5e3=-12500 n:1E+2=100 n:2e-3=0.002 n:0.125=0.125)", "A in (0, -0, -12.5e3, 1E+2, 2e-3, 0.125)" },
        { "A = 12345678901234567890123", "(Equal @«A» n:12345678901234567890123=1.2345678901234568E+22)", "A = 12345678901234567890123" },
        { "A = 9007199254740993", "(Equal @«A» n:9007199254740993=9007199254740992)", "A = 9007199254740993" },
        { "A>-5", "(Greater @«A» n:-5=-5)", "A > -5" },

        // Parameters.
        { "A = $from and B in ($p_1, $ü) and C between $lo and $hi", "(and (and (Equal @«A» $«from») (in @«B» $«p_1» $«ü»)) (between @«C» $«lo» $«hi»))", "A = $from and B in ($p_1, $ü) and C between $lo and $hi" },
    };

    [Theory]
    [MemberData(nameof(Conditions))]
    public void Condition_parses_to_its_tree_and_formats_canonically(string condition, string tree, string canonical)
    {
        var query = QueryParser.Parse("from O where " + condition);

        Assert.Equal(tree, SyntaxTreeDump.Dump(query.Where!));
        Assert.Equal("from O where " + canonical, QueryFormatter.Format(query));
        Assert.Equal(tree, SyntaxTreeDump.Dump(QueryParser.Parse(QueryFormatter.Format(query)).Where!));
    }

    public static TheoryData<string, string, string> Queries => new()
    {
        { "from Orders", "(query (Collection «Orders») (where ) (group) (select) (order) (limit ) (offset ))", "from Orders" },
        { "FROM \"My Orders\"", "(query (Collection «My Orders») (where ) (group) (select) (order) (limit ) (offset ))", "from \"My Orders\"" },
        { "from `index`", "(query (Collection «index») (where ) (group) (select) (order) (limit ) (offset ))", "from \"index\"" },
        { "from Id", "(query (Collection «Id») (where ) (group) (select) (order) (limit ) (offset ))", "from Id" },
        { "From Index 'it''s/idx'", "(query (Index «it's/idx») (where ) (group) (select) (order) (limit ) (offset ))", "from index 'it''s/idx'" },
        {
            "from O select Total as t, count() as \"n c\", sum(Total) AS 'S', Customer.Name, \"Ship to\".Zip, id(), Id as key, min(OrderedAt), max(OrderedAt), avg(Total), count(Total)",
            "(query (Collection «O») (where ) (group) (select («t» @«Total») («n c» (Count)) («S» (Sum @«Total»)) («Customer.Name» @«Customer.Name») («\"Ship to\".Zip» @«\"Ship to\".Zip») («Id» #id) («key» #id) («min(OrderedAt)» (Min @«OrderedAt»)) («max(OrderedAt)» (Max @«OrderedAt»)) («avg(Total)» (Avg @«Total»)) («count(Total)» (Count @«Total»))) (order) (limit ) (offset ))",
            "from O select Total as t, count() as \"n c\", sum(Total) as S, Customer.Name, \"Ship to\".Zip, id(), id() as key, min(OrderedAt), max(OrderedAt), avg(Total), count(Total)"
        },
        {
            "from O select Total as Total, count() as \"count()\", Total as \"select\"",
            "(query (Collection «O») (where ) (group) (select («Total» @«Total») («count()» (Count)) («select» @«Total»)) (order) (limit ) (offset ))",
            "from O select Total, count(), Total as \"select\""
        },
        {
            "from O select facet(Status), facet(Total, ranges(-10, 0.5, $top)) as t",
            "(query (Collection «O») (where ) (group) (select («facet(Status)» (facet @«Status»)) («t» (facet @«Total» n:-10=-10 n:0.5=0.5 $«top»))) (order) (limit ) (offset ))",
            "from O select facet(Status), facet(Total, ranges(-10, 0.5, $top)) as t"
        },
        {
            "from O group by Status, time(OrderedAt, $interval), Id select Status, count() order by count() desc, sum(Total), Status asc",
            "(query (Collection «O») (where ) (group @«Status» (time @«OrderedAt» $«interval») #id) (select («Status» @«Status») («count()» (Count))) (order («count()» (Count) desc Default) («sum(Total)» (Sum @«Total») asc Default) (@«Status» asc Default)) (limit ) (offset ))",
            "from O group by Status, time(OrderedAt, $interval), id() select Status, count() order by count() desc, sum(Total), Status"
        },
        {
            "from O order by Total as number desc, Code AS STRING, id() DESC limit $n offset $o",
            "(query (Collection «O») (where ) (group) (select) (order (@«Total» desc Number) (@«Code» asc String) (#id desc Default)) (limit $«n») (offset $«o»))",
            "from O order by Total as number desc, Code as string, id() desc limit $n offset $o"
        },
        {
            "from O limit 0 offset 99999999999999999999",
            "(query (Collection «O») (where ) (group) (select) (order) (limit n:0=0) (offset n:99999999999999999999=1E+20))",
            "from O limit 0 offset 99999999999999999999"
        },
        {
            "from O offset 5",
            "(query (Collection «O») (where ) (group) (select) (order) (limit ) (offset n:5=5))",
            "from O offset 5"
        },
        {
            "  from\tO\r\n  where A = 1\n\nselect A  order   by A  ",
            "(query (Collection «O») (where (Equal @«A» n:1=1)) (group) (select («A» @«A»)) (order (@«A» asc Default)) (limit ) (offset ))",
            "from O where A = 1 select A order by A"
        },
        {
            "from O where count = 1 and sum = 2 and facet = 3 select count, time",
            "(query (Collection «O») (where (and (and (Equal @«count» n:1=1) (Equal @«sum» n:2=2)) (Equal @«facet» n:3=3))) (group) (select («count» @«count») («time» @«time»)) (order) (limit ) (offset ))",
            "from O where count = 1 and sum = 2 and facet = 3 select count, time"
        },
    };

    [Theory]
    [MemberData(nameof(Queries))]
    public void Query_parses_to_its_tree_and_formats_canonically(string text, string tree, string canonical)
    {
        var query = QueryParser.Parse(text);

        Assert.Equal(tree, SyntaxTreeDump.Dump(query));
        Assert.Equal(canonical, QueryFormatter.Format(query));
        Assert.Equal(tree, SyntaxTreeDump.Dump(QueryParser.Parse(canonical)));
    }

    [Fact]
    public void Nodes_carry_the_position_where_they_start_also_on_later_lines()
    {
        var query = QueryParser.Parse("from Orders\nwhere (Total > 5\n   and not Status = 'x')\nselect count() as n\norder by Total desc limit $n");

        Assert.Equal(new SourcePosition(5, 1, 6), query.Source.Position);
        var and = Assert.IsType<AndFilter>(query.Where);
        var total = Assert.IsType<ComparisonFilter>(and.Left);
        Assert.Equal(new SourcePosition(19, 2, 8), total.Position);
        Assert.Equal(total.Position, and.Position);
        Assert.Equal(new SourcePosition(27, 2, 16), total.Value.Position);
        var not = Assert.IsType<NotFilter>(and.Right);
        Assert.Equal(new SourcePosition(36, 3, 8), not.Position);
        var status = Assert.IsType<ComparisonFilter>(not.Operand);
        Assert.Equal(new SourcePosition(40, 3, 12), status.Field.Position);
        Assert.Equal(new SourcePosition(49, 3, 21), status.Value.Position);
        Assert.Equal(new SourcePosition(61, 4, 8), query.Select[0].Position);
        Assert.Equal(new SourcePosition(83, 5, 10), query.OrderBy[0].Position);
        Assert.Equal(new SourcePosition(100, 5, 27), query.Limit!.Position);
    }

    [Fact]
    public void A_long_chain_parses_to_a_shallow_tree_and_formats_back_flat()
    {
        // 5,000 operands (60 KB): a left-deep tree would be 5,000 levels deep for every recursive walker.
        var operands = Enumerable.Range(0, 5_000).Select(i => $"A = {i}");
        var text = "from O where " + string.Join(" or ", operands);
        var query = QueryParser.Parse(text);

        Assert.True(Depth(query.Where!) <= 14, $"depth {Depth(query.Where!)}");
        Assert.Equal(text, QueryFormatter.Format(query));
    }

    private static int Depth(QueryFilter filter) => filter switch
    {
        AndFilter a => 1 + Math.Max(Depth(a.Left), Depth(a.Right)),
        OrFilter o => 1 + Math.Max(Depth(o.Left), Depth(o.Right)),
        NotFilter n => 1 + Depth(n.Operand),
        _ => 1,
    };
}
