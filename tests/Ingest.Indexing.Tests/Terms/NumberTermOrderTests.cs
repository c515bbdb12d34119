using Ingest.Indexing.Terms;
using Xunit.Abstractions;

namespace Ingest.Indexing.Tests.Terms;

/// <summary>The property the term dictionary's range scans rely on: unsigned byte order of keys is numeric order.</summary>
public sealed class NumberTermOrderTests(ITestOutputHelper output)
{
    private const int Pairs = 200_000;

    [Fact]
    public void Encoded_numbers_compare_as_the_numbers_do() => TestSeed.Run(seed =>
    {
        output.WriteLine($"seed {seed} (replay with INGEST_TEST_SEED={seed})");
        var random = new Random(seed);
        Span<byte> left = stackalloc byte[NumberTerm.Size];
        Span<byte> right = stackalloc byte[NumberTerm.Size];
        var ties = 0;
        for (var i = 0; i < Pairs * TestSeed.Scale; i++)
        {
            var a = RandomNumber(random);
            var b = random.Next(4) == 0 ? Neighbour(a, random) : RandomNumber(random);
            a.Write(left);
            b.Write(right);

            var exact = a.CompareTo(b);
            var encoded = Math.Sign(left.SequenceCompareTo(right));
            if (encoded != 0)
            {
                Assert.True(exact == encoded, $"{a} vs {b}: numbers compare {exact}, keys {encoded}");
                continue;
            }

            // Equal keys: equal numbers, or integers beyond 2^53 that round to the same double.
            Assert.True(exact == 0 || a.AsDouble == b.AsDouble && (!a.IsExactDouble || !b.IsExactDouble), $"{a} and {b} share a key");
            Assert.Equal(a.AsDouble, NumberTerm.Read(left));
            ties += exact == 0 ? 0 : 1;
        }

        output.WriteLine($"{Pairs * TestSeed.Scale} pairs, {ties} rounding ties beyond 2^53");
    });

    private static Number RandomNumber(Random random) => random.Next(10) switch
    {
        0 => Number.Of(random.NextInt64(long.MinValue, long.MaxValue)),
        1 => Number.Of(random.NextInt64(-1000, 1000)),
        2 => Number.Of((random.Next(2) == 0 ? 1 : -1) * ((1L << 53) + random.NextInt64(-8, 8))),
        3 => Number.Of(random.Next(4) switch { 0 => long.MinValue, 1 => long.MaxValue, 2 => 0, _ => -1 }),
        4 => Number.Of(RandomFiniteBits(random)),
        5 => Number.Of((random.NextDouble() - 0.5) * 2000),
        6 => Number.Of((double)random.NextInt64(long.MinValue, long.MaxValue)),
        7 => Number.Of(random.Next(4) switch { 0 => double.PositiveInfinity, 1 => double.NegativeInfinity, 2 => -0.0, _ => double.Epsilon }),
        8 => Number.Of(Math.Round((random.NextDouble() - 0.5) * 2e6)),
        _ => Number.Of(random.NextInt64(-1000, 1000) + (random.Next(3) - 1) * 0.5),
    };

    /// <summary>A number next to <paramref name="a"/>: equal, one apart, or the double on either side, so ties and near misses are frequent.</summary>
    private static Number Neighbour(Number a, Random random) => random.Next(5) switch
    {
        0 => a.IsInteger ? Number.Of((double)a.Integer) : Number.Of(a.Real),
        1 => a.IsInteger ? Number.Of(a.Integer == long.MaxValue ? a.Integer : a.Integer + 1) : Number.Of(Math.BitIncrement(a.Real)),
        2 => a.IsInteger ? Number.Of(a.Integer == long.MinValue ? a.Integer : a.Integer - 1) : Number.Of(Math.BitDecrement(a.Real)),
        3 => Number.Of(-a.AsDouble),
        _ => a.IsInteger || double.IsInfinity(a.Real) || Math.Abs(a.Real) >= 9e18 ? a : Number.Of((long)a.Real),
    };

    private static double RandomFiniteBits(Random random)
    {
        while (true)
        {
            var value = BitConverter.Int64BitsToDouble(random.NextInt64(long.MinValue, long.MaxValue));
            if (double.IsFinite(value))
            {
                return value;
            }
        }
    }

    /// <summary>A JSON number as the extractor sees it: an int64 where it fits, a double otherwise.</summary>
    private readonly record struct Number(bool IsInteger, long Integer, double Real)
    {
        public static Number Of(long value) => new(true, value, 0);

        public static Number Of(double value) => new(false, 0, value);

        public double AsDouble => IsInteger ? Integer : Real;

        /// <summary>Whether the double key holds this number exactly.</summary>
        public bool IsExactDouble => !IsInteger || (long)(double)Integer == Integer && Integer != long.MaxValue;

        public void Write(Span<byte> key)
        {
            if (IsInteger)
            {
                NumberTerm.Write(Integer, key);
            }
            else
            {
                NumberTerm.Write(Real, key);
            }
        }

        /// <summary>Exact comparison, also between an int64 and a double that have no common exact type.</summary>
        public int CompareTo(Number other) => (IsInteger, other.IsInteger) switch
        {
            (true, true) => Math.Sign(Integer.CompareTo(other.Integer)),
            (false, false) => Math.Sign(Real.CompareTo(other.Real)),
            (true, false) => CompareIntegerToReal(Integer, other.Real),
            (false, true) => -CompareIntegerToReal(other.Integer, Real),
        };

        public override string ToString() => IsInteger ? $"int64 {Integer}" : $"double {Real:R}";

        private static int CompareIntegerToReal(long integer, double real)
        {
            if (real >= 9223372036854775808.0)
            {
                return -1;
            }

            if (real < -9223372036854775808.0)
            {
                return 1;
            }

            var whole = Math.Truncate(real); // exact, and within int64 range
            var wholeInteger = (long)whole;
            if (integer != wholeInteger)
            {
                return Math.Sign(integer.CompareTo(wholeInteger));
            }

            var fraction = real - whole;
            return fraction > 0 ? -1 : fraction < 0 ? 1 : 0;
        }
    }
}
