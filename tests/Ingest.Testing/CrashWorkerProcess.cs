using System.Diagnostics;
using System.Globalization;

namespace Ingest.Testing;

/// <summary>
/// A crash-test child process: a worker assembly built beside the test assembly, started with
/// <c>dotnet exec WORKER DIRECTORY SEED</c>, which prints a line for each thing it made durable.
/// <see cref="RunAndKill"/> lets it work for a while and then ends it with SIGKILL.
/// </summary>
public static class CrashWorkerProcess
{
    /// <summary>The worker's dll, in the worker project's output folder next to the test project's.</summary>
    public static string PathOf(string testProject, string workerProject)
    {
        var testDir = AppContext.BaseDirectory.TrimEnd(Path.DirectorySeparatorChar);
        var path = Path.Combine(testDir.Replace(testProject, workerProject, StringComparison.Ordinal), workerProject + ".dll");
        if (!File.Exists(path))
        {
            throw new FileNotFoundException($"crash worker not built at {path}", path);
        }

        return path;
    }

    /// <summary>
    /// Starts the worker, waits until <paramref name="onLine"/> accepts its first line, lets it run
    /// for <paramref name="runFor"/>, then kills it with SIGKILL and waits until every line it
    /// printed has been handed to <paramref name="onLine"/> (called on one reader thread).
    /// <paramref name="mode"/>, when given, is the worker's third argument (a worker that can do more than one thing).
    /// </summary>
    /// <param name="arguments">More arguments for the worker, after the directory and the seed (a mode, say).</param>
    public static void RunAndKill(string worker, string directory, int seed, TimeSpan runFor, Func<string, bool> onLine, params string[] arguments)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add("exec");
        start.ArgumentList.Add(worker);
        start.ArgumentList.Add(directory);
        start.ArgumentList.Add(seed.ToString(CultureInfo.InvariantCulture));
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start");
        using var first = new ManualResetEventSlim();
        var reader = new Thread(() =>
        {
            string? line;
            while ((line = process.StandardOutput.ReadLine()) != null)
            {
                if (onLine(line))
                {
                    first.Set();
                }
            }

            first.Set();
        });
        reader.Start();
        var stderr = process.StandardError.ReadToEndAsync();
        if (!first.Wait(TimeSpan.FromSeconds(60)))
        {
            process.Kill();
            throw new TimeoutException("the worker reported nothing durable within 60 s");
        }

        Thread.Sleep(runFor);
        if (process.HasExited)
        {
            throw new InvalidOperationException($"the worker exited with {process.ExitCode}: {stderr.Result}");
        }

        process.Kill(entireProcessTree: true); // SIGKILL
        process.WaitForExit();
        reader.Join();
    }
}
