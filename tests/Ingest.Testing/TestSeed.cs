using System.Globalization;

namespace Ingest.Testing;

/// <summary>Seeds for randomized tests: INGEST_TEST_SEED replays a failure.</summary>
public static class TestSeed
{
    /// <summary>INGEST_TEST_SCALE multiplies the size of randomized runs (soak testing); 1 by default.</summary>
    public static int Scale => int.TryParse(Environment.GetEnvironmentVariable("INGEST_TEST_SCALE"), CultureInfo.InvariantCulture, out var s) && s > 0 ? s : 1;

    public static int Next()
    {
        var fromEnv = Environment.GetEnvironmentVariable("INGEST_TEST_SEED");
        return fromEnv != null ? int.Parse(fromEnv, CultureInfo.InvariantCulture) : Random.Shared.Next();
    }

    /// <summary>Runs a randomized test body; a failure reports the seed and how to replay it.</summary>
    public static void Run(Action<int> body)
    {
        var seed = Next();

        // Announced before the body runs: a test that hangs never reaches the catch below, and the
        // blame collector's log shows this line next to the test it aborted.
        Console.Error.WriteLine($"TestSeed: {body.Method.DeclaringType?.Name}.{body.Method.Name} runs with INGEST_TEST_SEED={seed}");
        try
        {
            body(seed);
        }
        catch (Exception ex)
        {
            throw new Xunit.Sdk.XunitException($"Failed with seed {seed}; replay with INGEST_TEST_SEED={seed}.{Environment.NewLine}{ex}");
        }
    }
}
