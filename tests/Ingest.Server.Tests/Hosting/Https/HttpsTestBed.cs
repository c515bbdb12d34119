using Ingest.Testing.Tls;
using Microsoft.Extensions.Options;

namespace Ingest.Server.Tests.Hosting.Https;

/// <summary>
/// What an HTTPS test stands on: a directory for certificate files and the data, a CA made in the test, and the real
/// server started with <c>Ingest:Https</c> settings.
/// </summary>
internal sealed class HttpsTestBed : IDisposable
{
    /// <summary>The password of the test's PKCS#12 files and encrypted keys; asserted absent from every error.</summary>
    public const string Password = "pfx-Pa55word-7f3c";

    private readonly TestDirectory _directory = new();

    public TestCertificateAuthority Authority { get; } = TestCertificateAuthority.Create();

    public string DataDirectory => _directory.Combine("data");

    public string File(string name) => _directory.Combine(name);

    /// <summary>
    /// Starts the server with <paramref name="settings"/> and no listen address but <c>Ingest:Https:Url=https://127.0.0.1:0</c>,
    /// unless they give that or Kestrel:Endpoints.
    /// </summary>
    public Task<RunningServer> StartAsync(params string[] settings)
    {
        var chooses = settings.Any(static setting => setting.StartsWith("--Ingest:Https:Url=", StringComparison.Ordinal) || setting.StartsWith("--Kestrel:Endpoints:", StringComparison.Ordinal));
        return RunningServer.StartListeningAsync(DataDirectory, chooses ? settings : [.. settings, "--Ingest:Https:Url=https://127.0.0.1:0"]);
    }

    /// <summary>Starts the server as <see cref="StartAsync"/> does, which must fail on its settings; returns the message.</summary>
    public async Task<string> StartFailureAsync(params string[] settings)
    {
        var failure = await Assert.ThrowsAsync<OptionsValidationException>(async () =>
        {
            await using var server = await StartAsync(settings);
        });
        return failure.Message;
    }

    public void Dispose()
    {
        Authority.Dispose();
        _directory.Dispose();
    }
}
