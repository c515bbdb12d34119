using Ingest.Server.Hosting;
using Ingest.Server.Tests.Crash;
using Ingest.Testing.Tls;

namespace Ingest.Server.Tests.Hosting.Https;

/// <summary>
/// Bad <c>Ingest:Https</c> settings stop start-up with a message that names the setting to fix and never the password;
/// the HTTPS address joins whatever plain addresses were chosen.
/// </summary>
public sealed class HttpsSettingsTests : IDisposable
{
    private const string Password = HttpsTestBed.Password;
    private readonly HttpsTestBed _bed = new();

    public void Dispose() => _bed.Dispose();

    [Fact]
    public async Task A_wrong_pfx_password_stops_the_server_process_naming_the_setting_not_the_password()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Rsa);
        certificate.WritePkcs12(_bed.File("server.pfx"), Password);
        const string wrong = "not-the-Pa55word-91d2";

        using var server = ServerProcess.Start(
            _bed.DataDirectory,
            ["--Ingest:Https:Url=https://127.0.0.1:0", $"--Ingest:Https:CertificatePath={_bed.File("server.pfx")}", $"--Ingest:Https:CertificatePassword={wrong}"],
            [],
            new Dictionary<string, string>());
        server.WaitFor("Ingest cannot start:", TimeSpan.FromSeconds(60));
        Assert.Equal(2, server.Stop(TimeSpan.FromSeconds(30)));

        Assert.Contains("Ingest:Https:CertificatePassword does not open the PKCS#12 file Ingest:Https:CertificatePath", server.Log, StringComparison.Ordinal);
        Assert.DoesNotContain(wrong, server.Log, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, server.Log, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_missing_key_file_is_named()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        certificate.WriteCertificatePem(_bed.File("server.crt"));
        var missing = _bed.File("absent.key");

        var message = await _bed.StartFailureAsync($"--Ingest:Https:CertificatePath={_bed.File("server.crt")}", $"--Ingest:Https:KeyPath={missing}");

        Assert.Contains($"Ingest:Https:KeyPath names no file: {missing}.", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_pem_certificate_without_its_key_asks_for_the_key_path()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        certificate.WriteCertificatePem(_bed.File("server.crt"));

        var message = await _bed.StartFailureAsync($"--Ingest:Https:CertificatePath={_bed.File("server.crt")}");

        Assert.Contains("holds no PEM private key", message, StringComparison.Ordinal);
        Assert.Contains("set Ingest:Https:KeyPath", message, StringComparison.Ordinal);
    }

    [Theory]
    [InlineData(TestKeyKind.Rsa, TestKeyKind.Rsa)]
    [InlineData(TestKeyKind.Ecdsa, TestKeyKind.Ecdsa)]
    [InlineData(TestKeyKind.Ecdsa, TestKeyKind.Rsa)]
    public async Task A_key_of_another_certificate_is_refused(TestKeyKind certificateKind, TestKeyKind keyKind)
    {
        using var certificate = _bed.Authority.IssueServerCertificate(certificateKind);
        using var other = _bed.Authority.IssueServerCertificate(keyKind);
        certificate.WriteCertificatePem(_bed.File("server.crt"));
        other.WriteKeyPem(_bed.File("other.key"));

        var message = await _bed.StartFailureAsync($"--Ingest:Https:CertificatePath={_bed.File("server.crt")}", $"--Ingest:Https:KeyPath={_bed.File("other.key")}");

        Assert.Contains($"the key in Ingest:Https:KeyPath ({_bed.File("other.key")})", message, StringComparison.Ordinal);
        Assert.Contains("belongs to another certificate", message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task An_encrypted_key_needs_its_password_and_a_wrong_one_is_named_but_not_shown()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Rsa);
        certificate.WriteCertificatePem(_bed.File("server.crt"));
        certificate.WriteKeyPem(_bed.File("server.key"), Password);
        string[] files = [$"--Ingest:Https:CertificatePath={_bed.File("server.crt")}", $"--Ingest:Https:KeyPath={_bed.File("server.key")}"];
        const string wrong = "not-the-Pa55word-91d2";

        var withoutPassword = await _bed.StartFailureAsync(files);
        var withWrongPassword = await _bed.StartFailureAsync([.. files, $"--Ingest:Https:CertificatePassword={wrong}"]);

        Assert.Contains("holds an encrypted key: set Ingest:Https:CertificatePassword.", withoutPassword, StringComparison.Ordinal);
        Assert.Contains("Ingest:Https:CertificatePassword does not decrypt the key in Ingest:Https:KeyPath", withWrongPassword, StringComparison.Ordinal);
        Assert.DoesNotContain(wrong, withWrongPassword, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, withWrongPassword, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_missing_certificate_file_and_an_address_without_a_certificate_are_named()
    {
        var missing = _bed.File("absent.pfx");

        var noFile = await _bed.StartFailureAsync($"--Ingest:Https:CertificatePath={missing}", $"--Ingest:Https:CertificatePassword={Password}");
        var noCertificate = await _bed.StartFailureAsync();
        var plainAddress = await _bed.StartFailureAsync("--Ingest:Https:Url=http://127.0.0.1:0", $"--Ingest:Https:CertificatePath={missing}");

        Assert.Contains($"Ingest:Https:CertificatePath names no file: {missing}.", noFile, StringComparison.Ordinal);
        Assert.DoesNotContain(Password, noFile, StringComparison.Ordinal);
        Assert.Contains("Ingest:Https:Url needs Ingest:Https:CertificatePath", noCertificate, StringComparison.Ordinal);
        Assert.Contains("Ingest:Https:Url must be an https:// address", plainAddress, StringComparison.Ordinal);
    }

    [Fact]
    public async Task The_https_address_joins_the_chosen_plain_addresses_or_stands_alone()
    {
        Assert.Equal("https://0.0.0.0:8443", await ListenUrlsAsync("--Ingest:Https:Url=https://0.0.0.0:8443"));
        Assert.Equal("http://127.0.0.1:9000;https://0.0.0.0:8443", await ListenUrlsAsync("--urls=http://127.0.0.1:9000", "--Ingest:Https:Url=https://0.0.0.0:8443"));
        Assert.Equal("http://*:8080;https://0.0.0.0:8443", await ListenUrlsAsync("--http_ports=8080", "--Ingest:Https:Url=https://0.0.0.0:8443"));
        Assert.Equal(HttpOptions.DefaultUrls, await ListenUrlsAsync());
        Assert.Null(await ListenUrlsAsync("--Kestrel:Endpoints:Api:Url=http://127.0.0.1:9000"));
    }

    [Fact]
    public async Task An_https_address_beside_kestrel_endpoints_is_refused()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        certificate.WritePkcs12(_bed.File("server.pfx"), Password);

        var message = await _bed.StartFailureAsync(
            "--Ingest:Https:Url=https://127.0.0.1:0",
            "--Kestrel:Endpoints:Api:Url=http://127.0.0.1:0",
            $"--Ingest:Https:CertificatePath={_bed.File("server.pfx")}",
            $"--Ingest:Https:CertificatePassword={Password}");

        Assert.Contains("Ingest:Https:Url cannot be combined with Kestrel:Endpoints", message, StringComparison.Ordinal);
    }

    private async Task<string?> ListenUrlsAsync(params string[] settings)
    {
        await using var app = IngestHost.Build([$"--Ingest:DataDirectory={_bed.DataDirectory}", .. settings]);
        return app.Configuration["urls"];
    }
}
