using System.Diagnostics;
using Ingest.Cli.Tests.Support;

namespace Ingest.Cli.Tests.Commands;

/// <summary>The built <c>ingest</c> executable as a user runs it: real stdin, real exit code.</summary>
public sealed class IngestExecutableTests
{
    [Fact]
    public async Task Invalid_json_lines_on_stdin_exit_2_naming_the_line()
    {
        var startInfo = new ProcessStartInfo("dotnet")
        {
            ArgumentList =
            {
                Path.Combine(AppContext.BaseDirectory, "ingest.dll"),
                "publish", "kafka", "--bootstrap", $"127.0.0.1:{LocalPorts.Unused()}", "--topic", "t", "--lines", "--id-property", "id", "-",
            },
            RedirectStandardInput = true,
            RedirectStandardOutput = true,
            RedirectStandardError = true,
        };
        using var process = Process.Start(startInfo)!;

        await process.StandardInput.WriteAsync("{\"id\":\"a\"}\n{\"id\":\n");
        process.StandardInput.Close();
        var error = await process.StandardError.ReadToEndAsync();
        var output = await process.StandardOutput.ReadToEndAsync();
        await process.WaitForExitAsync().WaitAsync(TimeSpan.FromSeconds(60));

        Assert.Equal(2, process.ExitCode);
        Assert.StartsWith("error: stdin: line 2, column ", error, StringComparison.Ordinal);
        Assert.Contains("error: 1 problem in stdin; nothing was published", error, StringComparison.Ordinal);
        Assert.Empty(output);
    }
}
