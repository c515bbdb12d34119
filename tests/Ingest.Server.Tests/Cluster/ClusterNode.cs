using System.Globalization;
using Ingest.Server.Tests.Crash;
using Ingest.Testing;

namespace Ingest.Server.Tests.Cluster;

/// <summary>
/// One node of a test cluster: the real server as a child process with its own data directory and a
/// fixed port, so it can be SIGKILLed and started again at the same address with the same data.
/// </summary>
internal sealed class ClusterNode : IDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(90);
    private readonly string _dataDirectory;
    private readonly IReadOnlyList<string> _settings;
    private ServerProcess? _process;

    public ClusterNode(string name, string dataDirectory, IReadOnlyList<string> sharedSettings)
    {
        Name = name;
        _dataDirectory = dataDirectory;
        Port = LocalPorts.Unused();
        _settings = [.. sharedSettings, $"--Ingest:Cluster:Node={name}"];
        Client = new HttpClient { BaseAddress = new Uri(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{Port}/")), Timeout = TimeSpan.FromSeconds(60) };
    }

    public string Name { get; }

    public int Port { get; }

    public HttpClient Client { get; }

    public bool IsRunning => _process is { HasExited: false };

    /// <summary>How many times this node was killed.</summary>
    public int Kills { get; private set; }

    /// <summary>What the current (or last) process printed, for failure messages.</summary>
    public string Log => _process?.Log ?? "(never started)";

    /// <summary>Starts the process and waits until it listens.</summary>
    public void Start()
    {
        _process?.Dispose();
        _process = ServerProcess.Start(
            _dataDirectory, _settings, ["--urls", string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{Port}")], new Dictionary<string, string>());
        _process.WaitFor("Application started", StartTimeout);
    }

    /// <summary>SIGKILL: no shutdown code runs.</summary>
    public void Kill()
    {
        if (_process is { } process)
        {
            process.Kill();
            Kills++;
        }
    }

    /// <summary>Deletes the node's data directory (the node must be stopped).</summary>
    public void DeleteData()
    {
        if (IsRunning)
        {
            throw new InvalidOperationException($"{Name} is running; kill it first.");
        }

        if (Directory.Exists(_dataDirectory))
        {
            Directory.Delete(_dataDirectory, recursive: true);
        }
    }

    public void Dispose()
    {
        _process?.Dispose();
        Client.Dispose();
    }
}
