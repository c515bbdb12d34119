using System.Diagnostics;
using System.Security.Cryptography;
using System.Text;
using System.Text.RegularExpressions;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

/// <summary><c>ingest keys new</c> and <c>ingest keys hash</c>: keys and the hashes the server is configured with.</summary>
public sealed partial class KeysCommandTests
{
    [Fact]
    public async Task New_prints_a_random_key_its_sha256_and_the_settings_for_its_scopes()
    {
        var run = await CommandLineRun.RunAsync("keys", "new", "--scopes", "read,write", "--name", "dashboards", "--index", "2");
        var again = await CommandLineRun.RunAsync("keys", "new", "--scopes", "read");

        Assert.True(run.ExitCode == 0, run.ToString());
        var key = KeyLine().Match(run.Output).Groups[1].Value;
        var hash = HashLine().Match(run.Output).Groups[1].Value;
        Assert.StartsWith("ingest_", key, StringComparison.Ordinal);
        Assert.Equal("sha256:" + Convert.ToHexStringLower(SHA256.HashData(Encoding.UTF8.GetBytes(key))), hash);
        Assert.Contains("Ingest__ApiKeys__2__Name=dashboards", run.Output, StringComparison.Ordinal);
        Assert.Contains("Ingest__ApiKeys__2__Scopes__0=read", run.Output, StringComparison.Ordinal);
        Assert.Contains("Ingest__ApiKeys__2__Scopes__1=write", run.Output, StringComparison.Ordinal);
        Assert.Contains($"Ingest__ApiKeys__2__KeyHash={hash}", run.Output, StringComparison.Ordinal);
        Assert.DoesNotContain(key, KeyLine().Replace(run.Output, ""), StringComparison.Ordinal);
        Assert.NotEqual(key, KeyLine().Match(again.Output).Groups[1].Value);
    }

    [Theory]
    [InlineData("--scopes reed", "'reed' is not a scope")]
    [InlineData("--name grafana", "--scopes")]
    [InlineData("--scopes read --name has/slash", "--name may hold only")]
    public async Task New_refuses_bad_options_with_exit_2(string arguments, string expected)
    {
        var run = await CommandLineRun.RunAsync(["keys", "new", .. arguments.Split(' ')]);

        Assert.True(run.ExitCode == 2, run.ToString());
        Assert.Contains(expected, run.Error, StringComparison.Ordinal);
        Assert.Empty(run.Output);
    }

    [Fact]
    public async Task Hash_reads_the_key_from_stdin_and_prints_what_the_server_is_configured_with()
    {
        var startInfo = new ProcessStartInfo("dotnet")
        {
            ArgumentList = { Path.Combine(AppContext.BaseDirectory, "ingest.dll"), "keys", "hash" },
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using var process = Process.Start(startInfo)!;
        await process.StandardInput.WriteAsync("my-existing-key-0123456789");
        process.StandardInput.Close();
        var output = await process.StandardOutput.ReadToEndAsync();
        var error = await process.StandardError.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));

        Assert.True(process.ExitCode == 0, error);
        Assert.Equal("sha256:" + Convert.ToHexStringLower(SHA256.HashData("my-existing-key-0123456789"u8)), output.Trim());
    }

    [GeneratedRegex(@"^key:\s+(\S+)$", RegexOptions.Multiline)]
    private static partial Regex KeyLine();

    [GeneratedRegex(@"^key hash:\s+(\S+)$", RegexOptions.Multiline)]
    private static partial Regex HashLine();
}
