using System.Globalization;
using System.Text.Json;
using Ingest.Benchmarks.Ingestion;
using Ingest.Server.Tests.Crash;
using Ingest.Testing;

namespace Ingest.Benchmarks.Cluster;

/// <summary>
/// One server process of the benchmark, single or cluster mode, on a fixed loopback port with its own data
/// directory; its CPU time is read from /proc so the table can say what each node costs per document.
/// </summary>
internal sealed class BenchNode : IDisposable
{
    private static readonly TimeSpan StartTimeout = TimeSpan.FromSeconds(120);
    private readonly string _dataDirectory;
    private readonly IReadOnlyList<string> _settings;
    private ServerProcess? _process;

    public BenchNode(string name, string dataDirectory, IReadOnlyList<string> settings)
    {
        Name = name;
        _dataDirectory = dataDirectory;
        _settings = settings;
        Port = LocalPorts.Unused();
        var handler = new SocketsHttpHandler { MaxConnectionsPerServer = 256, PooledConnectionLifetime = TimeSpan.FromMinutes(10) };
        Client = new HttpClient(handler) { BaseAddress = new Uri(string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{Port}/")), Timeout = TimeSpan.FromSeconds(60) };
    }

    public string Name { get; }

    public int Port { get; }

    public HttpClient Client { get; }

    public bool IsRunning => _process is { HasExited: false };

    public void Start()
    {
        _process?.Dispose();
        _process = ServerProcess.Start(
            _dataDirectory, _settings, ["--urls", string.Create(CultureInfo.InvariantCulture, $"http://127.0.0.1:{Port}")], new Dictionary<string, string>());
        _process.WaitFor("Application started", StartTimeout);
    }

    /// <summary>SIGKILL.</summary>
    public void Kill() => _process?.Kill();

    /// <summary>The node's CPU time so far (user + system, all threads), from /proc/PID/stat.</summary>
    public TimeSpan Cpu()
    {
        if (_process is not { HasExited: false } process)
        {
            return TimeSpan.Zero;
        }

        var stat = File.ReadAllText($"/proc/{process.Id.ToString(CultureInfo.InvariantCulture)}/stat");
        var fields = stat[(stat.LastIndexOf(')') + 2)..].Split(' ');
        var ticks = long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
        return TimeSpan.FromSeconds(ticks / 100.0);
    }

    /// <summary>CPU time of the runtime's tiered-compilation thread so far: while it grows, the JIT has not settled.</summary>
    public TimeSpan JitCpu()
    {
        if (_process is not { HasExited: false } process)
        {
            return TimeSpan.Zero;
        }

        return ProcessCpu.TieredCompilation(process.Id);
    }

    /// <summary>The store's live document count, from <c>GET /stats</c>.</summary>
    public async Task<long> DocumentCountAsync()
    {
        using var json = JsonDocument.Parse(await Client.GetStringAsync(new Uri("stats", UriKind.Relative)).ConfigureAwait(false));
        return json.RootElement.GetProperty("store").GetProperty("documents").GetInt64();
    }

    public string Log => _process?.Log ?? "";

    public void Dispose()
    {
        _process?.Dispose();
        Client.Dispose();
    }
}
