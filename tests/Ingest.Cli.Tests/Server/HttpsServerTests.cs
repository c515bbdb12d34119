using System.Net;
using System.Security.Cryptography.X509Certificates;
using Ingest.Cli.Server;
using Ingest.Cli.Tests.Support;
using Ingest.Testing.Tls;

namespace Ingest.Cli.Tests.Server;

/// <summary>
/// The CLI against a real HTTPS server whose certificate a CA made in the test signed: trusted with --ca or INGEST_CA,
/// refused without, with a message that says how to pass the CA. Both the API client and the health probe.
/// </summary>
public sealed class HttpsServerTests : IAsyncLifetime
{
    private readonly TestDirectory _directory = new();
    private readonly TestCertificateAuthority _authority = TestCertificateAuthority.Create();
    private X509Certificate2? _certificate;
    private HttpsTestServer? _server;

    private HttpsTestServer Server => _server!;

    private string CaFile => _directory.Combine("ca.pem");

    public async Task InitializeAsync()
    {
        _authority.Certificate.WriteCertificatePem(CaFile);
        _certificate = _authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        _server = await HttpsTestServer.StartAsync(_certificate);
    }

    public async Task DisposeAsync()
    {
        if (_server is not null)
        {
            await _server.DisposeAsync();
        }

        _certificate?.Dispose();
        _authority.Dispose();
        _directory.Dispose();
    }

    [Fact]
    public async Task Health_and_api_commands_trust_the_server_signed_by_the_ca_given_with_ca()
    {
        var health = await CommandLineRun.RunAsync("health", "--url", Server.Url.ToString(), "--ca", CaFile);
        var indexes = await CommandLineRun.RunAsync("indexes", "list", "--url", Server.Url.ToString(), "--ca", CaFile);

        Assert.True(health.ExitCode == 0, health.ToString());
        Assert.StartsWith($"healthy ({Server.Url}health, HTTP 200)", health.Output, StringComparison.Ordinal);
        Assert.True(indexes.ExitCode == 0, indexes.ToString());
    }

    [Fact]
    public async Task The_ca_can_come_from_the_environment()
    {
        Environment.SetEnvironmentVariable(ServerTrust.CaVariable, CaFile);
        try
        {
            var health = await CommandLineRun.RunAsync("health", "--url", Server.Url.ToString());
            var indexes = await CommandLineRun.RunAsync("indexes", "list", "--url", Server.Url.ToString());

            Assert.True(health.ExitCode == 0, health.ToString());
            Assert.True(indexes.ExitCode == 0, indexes.ToString());
        }
        finally
        {
            Environment.SetEnvironmentVariable(ServerTrust.CaVariable, null);
        }
    }

    [Fact]
    public async Task Without_ca_the_certificate_is_untrusted_and_the_error_says_how_to_pass_the_ca()
    {
        var origin = Server.Url.GetLeftPart(UriPartial.Authority);

        var health = await CommandLineRun.RunAsync("health", "--url", Server.Url.ToString());
        var indexes = await CommandLineRun.RunAsync("indexes", "list", "--url", Server.Url.ToString());

        foreach (var run in (CommandLineRun[])[health, indexes])
        {
            Assert.Equal(1, run.ExitCode);
            Assert.StartsWith($"error: the certificate of {origin} is not trusted (signed by a CA this machine does not trust)", run.Error, StringComparison.Ordinal);
            Assert.Contains("pass --ca with that CA's PEM file or set INGEST_CA", run.Error, StringComparison.Ordinal);
            Assert.DoesNotContain("   at ", run.Error, StringComparison.Ordinal);
        }
    }

    [Fact]
    public async Task A_ca_that_did_not_sign_the_certificate_is_named()
    {
        using var other = TestCertificateAuthority.Create("Some Other CA");
        var otherFile = _directory.Combine("other-ca.pem");
        other.Certificate.WriteCertificatePem(otherFile);

        var run = await CommandLineRun.RunAsync("health", "--url", Server.Url.ToString(), "--ca", otherFile);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains($"is not trusted with --ca {otherFile} (not signed by a CA in that file)", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_certificate_for_another_host_is_refused_even_from_the_trusted_ca()
    {
        using var elsewhere = _authority.IssueServerCertificate(TestKeyKind.Rsa, "ingest.example");
        await using var server = await HttpsTestServer.StartAsync(elsewhere);

        var run = await CommandLineRun.RunAsync("indexes", "list", "--url", server.Url.ToString(), "--ca", CaFile);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("is not made out to '127.0.0.1'", run.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_ca_file_that_is_missing_or_holds_no_certificate_is_a_usage_error()
    {
        var missing = _directory.Combine("absent.pem");
        var empty = _directory.Combine("empty.pem");
        await File.WriteAllTextAsync(empty, "not a certificate\n");

        var noFile = await CommandLineRun.RunAsync("health", "--url", Server.Url.ToString(), "--ca", missing);
        var noCertificate = await CommandLineRun.RunAsync("indexes", "list", "--url", Server.Url.ToString(), "--ca", empty);

        Assert.Equal(2, noFile.ExitCode);
        Assert.Contains($"--ca names no file: {missing}", noFile.Error, StringComparison.Ordinal);
        Assert.Equal(2, noCertificate.ExitCode);
        Assert.Contains("cannot be read as a certificate", noCertificate.Error, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_https_url_for_a_plain_http_port_says_tls_failed()
    {
        using var plain = new StubHttpServer(_ => (HttpStatusCode.OK, "{\"status\":\"healthy\"}"));
        var url = new UriBuilder(plain.Url) { Scheme = Uri.UriSchemeHttps }.Uri;

        var run = await CommandLineRun.RunAsync("health", "--url", url.ToString(), "--ca", CaFile);

        Assert.Equal(1, run.ExitCode);
        Assert.Contains("no TLS connection with", run.Error, StringComparison.Ordinal);
        Assert.Contains("is it an https:// address?", run.Error, StringComparison.Ordinal);
    }
}
