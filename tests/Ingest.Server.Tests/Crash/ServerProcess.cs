using System.Collections.Concurrent;
using System.Diagnostics;
using System.Text;

namespace Ingest.Server.Tests.Crash;

/// <summary>
/// The real server as a child process (<c>dotnet exec Ingest.Server.dll</c> from the test's
/// output folder), for tests that kill it with SIGKILL or stop it with SIGTERM. The cluster benchmark
/// compiles this file in too (linked), to run its nodes the same way.
/// </summary>
internal sealed class ServerProcess : IDisposable
{
    private readonly Process _process;
    private readonly BlockingCollection<string> _lines = [];
    private readonly StringBuilder _log = new();
    private readonly Thread _stdout;
    private readonly Thread _stderr;

    private ServerProcess(Process process)
    {
        _process = process;
        _stdout = StartReader(process.StandardOutput);
        _stderr = StartReader(process.StandardError);
    }

    /// <summary>Everything the process printed so far, for failure messages.</summary>
    public string Log
    {
        get
        {
            lock (_log)
            {
                return _log.ToString();
            }
        }
    }

    public bool HasExited => _process.HasExited;

    /// <summary>The process id (for its CPU time in /proc).</summary>
    public int Id => _process.Id;

    public static ServerProcess Start(string dataDirectory, IEnumerable<string> settings) =>
        Start(dataDirectory, settings, ["--urls", "http://127.0.0.1:0"], new Dictionary<string, string>());

    /// <summary>Starts the server with these listen arguments (none: it takes its address from the environment) and environment variables.</summary>
    public static ServerProcess Start(
        string dataDirectory, IEnumerable<string> settings, IEnumerable<string> listenArguments, IReadOnlyDictionary<string, string> environment)
    {
        var server = Path.Combine(AppContext.BaseDirectory, "Ingest.Server.dll");
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in (string[])["exec", server, .. listenArguments, $"--Ingest:DataDirectory={dataDirectory}",
                     "--Logging:Console:FormatterName=simple", "--Logging:Console:FormatterOptions:SingleLine=true"])
        {
            start.ArgumentList.Add(argument);
        }

        foreach (var (name, value) in environment)
        {
            start.Environment[name] = value;
        }

        foreach (var setting in settings)
        {
            start.ArgumentList.Add(setting);
        }

        return new ServerProcess(Process.Start(start) ?? throw new InvalidOperationException("dotnet did not start"));
    }

    /// <summary>Waits for a printed line containing <paramref name="text"/>; fails if the process exits first.</summary>
    public void WaitFor(string text, TimeSpan timeout)
    {
        var deadline = DateTime.UtcNow + timeout;
        while (DateTime.UtcNow < deadline)
        {
            if (_lines.TryTake(out var line, TimeSpan.FromMilliseconds(100)))
            {
                if (line.Contains(text, StringComparison.Ordinal))
                {
                    return;
                }
            }
            else if (_process.HasExited && _lines.Count == 0)
            {
                throw new InvalidOperationException($"The server exited with {_process.ExitCode} before printing '{text}':\n{Log}");
            }
        }

        throw new TimeoutException($"The server did not print '{text}' within {timeout}:\n{Log}");
    }

    /// <summary>SIGKILL: no shutdown code runs.</summary>
    public void Kill()
    {
        _process.Kill(entireProcessTree: true);
        _process.WaitForExit();
    }

    /// <summary>SIGTERM: the host's graceful shutdown; returns the exit code.</summary>
    public int Stop(TimeSpan timeout)
    {
        using (var kill = Process.Start("kill", ["-TERM", _process.Id.ToString(System.Globalization.CultureInfo.InvariantCulture)]))
        {
            kill.WaitForExit();
        }

        if (!_process.WaitForExit(timeout))
        {
            Kill();
            throw new TimeoutException($"The server did not stop within {timeout} of SIGTERM:\n{Log}");
        }

        _process.WaitForExit();
        return _process.ExitCode;
    }

    public void Dispose()
    {
        if (!_process.HasExited)
        {
            Kill();
        }

        _stdout.Join();
        _stderr.Join();
        _process.Dispose();
        _lines.Dispose();
    }

    private Thread StartReader(StreamReader reader)
    {
        var thread = new Thread(() =>
        {
            string? line;
            while ((line = reader.ReadLine()) != null)
            {
                lock (_log)
                {
                    _log.AppendLine(line);
                }

                _lines.Add(line);
            }
        })
        { IsBackground = true };
        thread.Start();
        return thread;
    }
}
