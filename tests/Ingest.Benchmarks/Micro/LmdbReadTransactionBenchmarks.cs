using BenchmarkDotNet.Attributes;
using Ingest.Benchmarks.Baselines.Lmdb;

namespace Ingest.Benchmarks.Micro;

/// <summary>
/// What a read transaction costs through the LMDB binding: the reset/renew path the storage
/// benchmark uses against beginning and aborting a fresh one, a point read inside one, and a
/// short range scan (MDB_SET_RANGE then MDB_NEXT).
/// </summary>
[MemoryDiagnoser]
public class LmdbReadTransactionBenchmarks : IDisposable
{
    private const int Keys = 100_000;

    private readonly byte[] _key = new byte[24];
    private string _directory = string.Empty;
    private LmdbEnvironment? _environment;
    private LmdbTransaction? _reader;
    private LmdbDatabase _database;

    [GlobalSetup]
    public void Setup()
    {
        _directory = Directory.CreateTempSubdirectory("ingest-bench-micro-lmdb-").FullName;
        _environment = LmdbEnvironment.Open(_directory, new LmdbEnvironmentOptions { MapSize = 1L << 30 });
        _database = _environment.OpenDatabase("micro");

        var random = new Random(42);
        var value = new byte[150];
        using (var writer = _environment.BeginWrite())
        {
            for (var i = 0; i < Keys; i++)
            {
                random.NextBytes(_key);
                random.NextBytes(value);
                writer.Put(_database, _key, value);
            }

            writer.Commit();
        }

        // _key now holds the last key written: a hit for RenewGetReset.
        _reader = _environment.BeginRead();
        VerifyFullScan();
        _reader.Reset();
    }

    [Benchmark(Baseline = true)]
    public void RenewReset()
    {
        _reader!.Renew();
        _reader.Reset();
    }

    [Benchmark]
    public void BeginAbort()
    {
        using var transaction = _environment!.BeginRead();
    }

    [Benchmark]
    public int RenewGetReset()
    {
        _reader!.Renew();
        _reader.TryGet(_database, _key, out var value);
        var length = value.Length;
        _reader.Reset();
        return length;
    }

    [Benchmark]
    public int RenewScan100Reset()
    {
        _reader!.Renew();
        var seen = 0;
        using (var cursor = _reader.OpenCursor(_database))
        {
            var more = cursor.SeekAtLeast(_key.AsSpan(0, 2), out _, out _);
            while (more && ++seen < 100)
            {
                more = cursor.Next(out _, out _);
            }
        }

        _reader.Reset();
        return seen;
    }

    [GlobalCleanup]
    public void Dispose()
    {
        _reader?.Dispose();
        _environment?.Dispose();
        _reader = null;
        _environment = null;
        if (Directory.Exists(_directory))
        {
            Directory.Delete(_directory, recursive: true);
        }

        GC.SuppressFinalize(this);
    }

    /// <summary>The binding's cursor must see every key once, ascending; a benchmark of a broken binding measures nothing.</summary>
    private void VerifyFullScan()
    {
        using var cursor = _reader!.OpenCursor(_database);
        var count = 0;
        byte[]? previous = null;
        for (var more = cursor.First(out var key, out _); more; more = cursor.Next(out key, out _))
        {
            if (previous is not null && key.SequenceCompareTo(previous) <= 0)
            {
                throw new InvalidOperationException($"The cursor went backwards at entry {count}.");
            }

            previous = key.ToArray();
            count++;
        }

        var expected = _reader.CountEntries(_database);
        if (count != Keys || expected != Keys)
        {
            throw new InvalidOperationException($"The cursor saw {count} entries, mdb_stat says {expected}, {Keys} were written.");
        }
    }
}
