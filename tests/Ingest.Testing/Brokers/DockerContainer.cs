using System.Diagnostics;
using System.Net;
using System.Net.Sockets;

namespace Ingest.Testing.Brokers;

/// <summary>
/// A container started through the docker CLI. Testcontainers would be the usual choice, but its
/// Docker client packages are not served by the registry here; the CLI talks to the same engine.
/// </summary>
public sealed class DockerContainer : IAsyncDisposable
{
    private DockerContainer(string id, string image)
    {
        Id = id;
        Image = image;
    }

    public string Id { get; }

    public string Image { get; }

    /// <summary>Whether a Docker engine answers; the reason when it does not.</summary>
    public static async Task<(bool Available, string Reason)> ProbeEngineAsync()
    {
        try
        {
            var (exitCode, output) = await RunAsync(["info", "--format", "{{.ServerVersion}}"], TimeSpan.FromSeconds(10)).ConfigureAwait(false);
            return exitCode == 0 ? (true, $"Docker engine {output.Trim()}") : (false, $"`docker info` failed: {FirstLine(output)}");
        }
        catch (System.ComponentModel.Win32Exception ex)
        {
            return (false, $"the docker CLI is not installed ({ex.Message})");
        }
        catch (TimeoutException)
        {
            return (false, "`docker info` did not answer within 10 s");
        }
    }

    /// <summary>Runs <paramref name="image"/> detached; the container is removed on dispose.</summary>
    public static async Task<DockerContainer> StartAsync(string image, IReadOnlyList<string> runArguments)
    {
        ArgumentNullException.ThrowIfNull(runArguments);
        var arguments = new List<string>(runArguments.Count + 4) { "run", "--detach", "--rm" };
        arguments.AddRange(runArguments);
        arguments.Add(image);
        var (exitCode, output) = await RunAsync(arguments, TimeSpan.FromMinutes(5)).ConfigureAwait(false);
        if (exitCode != 0)
        {
            throw new BrokerUnavailableException($"`docker run {image}` failed: {output.Trim()}");
        }

        return new DockerContainer(output.Trim(), image);
    }

    /// <summary>A loopback port that was free a moment ago, for publishing a container port on.</summary>
    public static int FreeLoopbackPort()
    {
        using var listener = new TcpListener(IPAddress.Loopback, 0);
        listener.Start();
        return ((IPEndPoint)listener.LocalEndpoint).Port;
    }

    public async ValueTask DisposeAsync()
    {
        await RunAsync(["rm", "--force", Id], TimeSpan.FromMinutes(1)).ConfigureAwait(false);
    }

    private static async Task<(int ExitCode, string Output)> RunAsync(IEnumerable<string> arguments, TimeSpan timeout)
    {
        var start = new ProcessStartInfo("docker")
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        foreach (var argument in arguments)
        {
            start.ArgumentList.Add(argument);
        }

        using var process = Process.Start(start) ?? throw new InvalidOperationException("docker did not start");
        var stdout = process.StandardOutput.ReadToEndAsync();
        var stderr = process.StandardError.ReadToEndAsync();
        using var cancel = new CancellationTokenSource(timeout);
        try
        {
            await process.WaitForExitAsync(cancel.Token).ConfigureAwait(false);
        }
        catch (OperationCanceledException)
        {
            process.Kill(entireProcessTree: true);
            throw new TimeoutException($"docker {string.Join(' ', start.ArgumentList)} took longer than {timeout}");
        }

        return (process.ExitCode, await stdout.ConfigureAwait(false) + await stderr.ConfigureAwait(false));
    }

    private static string FirstLine(string text)
    {
        var trimmed = text.Trim();
        var end = trimmed.IndexOf('\n', StringComparison.Ordinal);
        return end < 0 ? trimmed : trimmed[..end];
    }
}
