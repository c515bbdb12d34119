using System.Net;
using System.Net.Http;
using System.Security.Authentication;
using Ingest.Testing.Tls;

namespace Ingest.Server.Tests.Hosting.Https;

/// <summary>
/// HTTPS from <c>Ingest:Https</c>, end to end: a CA and a server certificate made in the test, written as the files a
/// user has, the real server started on them, and real TLS clients that trust that CA (or do not).
/// </summary>
public sealed class HttpsServerTests : IDisposable
{
    private const string Password = HttpsTestBed.Password;
    private readonly HttpsTestBed _bed = new();

    public void Dispose() => _bed.Dispose();

    [Fact]
    public async Task A_pem_certificate_and_key_serve_http2_over_tls_without_hsts_unless_asked()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Rsa);
        certificate.WriteCertificatePem(_bed.File("server.crt"));
        certificate.WriteKeyPem(_bed.File("server.key"));

        await using var server = await _bed.StartAsync(
            $"--Ingest:Https:CertificatePath={_bed.File("server.crt")}",
            $"--Ingest:Https:KeyPath={_bed.File("server.key")}");
        using var client = TlsClients.Trusting(_bed.Authority.Certificate);
        using var response = await client.GetAsync(new Uri(server.HttpsAddress, "alive"));

        Assert.Single(server.Addresses);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal("alive", await response.Content.ReadAsStringAsync());
        Assert.False(response.Headers.Contains("Strict-Transport-Security"));
    }

    [Fact]
    public async Task An_encrypted_pem_key_in_the_certificate_file_opens_with_its_password()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        var path = _bed.File("server.pem");
        certificate.WriteCertificatePem(_bed.File("leaf.pem"));
        certificate.WriteKeyPem(_bed.File("key.pem"), Password);
        await File.WriteAllTextAsync(path, await File.ReadAllTextAsync(_bed.File("leaf.pem")) + await File.ReadAllTextAsync(_bed.File("key.pem")));

        await using var server = await _bed.StartAsync(
            $"--Ingest:Https:CertificatePath={path}", $"--Ingest:Https:CertificatePassword={Password}");
        using var client = TlsClients.Trusting(_bed.Authority.Certificate);
        using var response = await client.GetAsync(new Uri(server.HttpsAddress, "alive"));

        Assert.Equal(HttpVersion.Version20, response.Version);
        Assert.Equal(HttpStatusCode.OK, response.StatusCode);
    }

    [Fact]
    public async Task A_pfx_serves_https_beside_plain_http_and_hsts_goes_on_https_answers_only()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        certificate.WritePkcs12(_bed.File("server.pfx"), Password);

        await using var server = await _bed.StartAsync(
            "--urls=http://127.0.0.1:0",
            $"--Ingest:Https:CertificatePath={_bed.File("server.pfx")}",
            $"--Ingest:Https:CertificatePassword={Password}",
            "--Ingest:Https:Hsts=true",
            "--Ingest:Https:HstsMaxAge=00:10:00",
            "--Ingest:Https:HstsIncludeSubDomains=true");
        using var tls = TlsClients.Trusting(_bed.Authority.Certificate);
        using var plain = new HttpClient();
        var http = server.Addresses.Single(static address => address.Scheme == Uri.UriSchemeHttp);

        using var secure = await tls.GetAsync(new Uri(server.HttpsAddress, "alive"));
        using var secureError = await tls.GetAsync(new Uri(server.HttpsAddress, "no-such-endpoint"));
        using var insecure = await plain.GetAsync(new Uri(http, "alive"));

        Assert.Equal(2, server.Addresses.Count);
        Assert.Equal(HttpVersion.Version20, secure.Version);
        Assert.Equal(["max-age=600; includeSubDomains"], secure.Headers.GetValues("Strict-Transport-Security"));
        Assert.Equal(HttpStatusCode.NotFound, secureError.StatusCode);
        Assert.Equal(["max-age=600; includeSubDomains"], secureError.Headers.GetValues("Strict-Transport-Security"));
        Assert.Equal(HttpStatusCode.OK, insecure.StatusCode);
        Assert.False(insecure.Headers.Contains("Strict-Transport-Security"));
    }

    [Fact]
    public async Task Kestrel_endpoints_keep_their_own_certificate_and_take_ours_when_they_have_none()
    {
        using var own = _bed.Authority.IssueServerCertificate(TestKeyKind.Rsa);
        own.WriteCertificatePem(_bed.File("own.crt"));
        own.WriteKeyPem(_bed.File("own.key"));
        using var ours = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        ours.WritePkcs12(_bed.File("ours.pfx"), Password);

        await using var server = await _bed.StartAsync(
            "--Kestrel:Endpoints:Own:Url=https://127.0.0.1:0",
            $"--Kestrel:Endpoints:Own:Certificate:Path={_bed.File("own.crt")}",
            $"--Kestrel:Endpoints:Own:Certificate:KeyPath={_bed.File("own.key")}",
            "--Kestrel:Endpoints:Default:Url=https://127.0.0.1:0",
            $"--Ingest:Https:CertificatePath={_bed.File("ours.pfx")}",
            $"--Ingest:Https:CertificatePassword={Password}");
        using var client = TlsClients.Trusting(_bed.Authority.Certificate);
        var served = new List<string>();
        foreach (var address in server.Addresses)
        {
            using var response = await client.GetAsync(new Uri(address, "alive"));
            Assert.Equal(HttpVersion.Version20, response.Version);
            served.Add(await TlsClients.ServerCertificateThumbprintAsync(address, _bed.Authority.Certificate));
        }

        Assert.Equal(2, server.Addresses.Count);
        Assert.Equal(new[] { own.Thumbprint, ours.Thumbprint }.Order(StringComparer.Ordinal), served.Order(StringComparer.Ordinal));
    }

    [Fact]
    public async Task A_client_that_does_not_trust_the_ca_is_refused_the_connection()
    {
        using var certificate = _bed.Authority.IssueServerCertificate(TestKeyKind.Ecdsa);
        certificate.WritePkcs12(_bed.File("server.pfx"), Password);
        using var otherAuthority = TestCertificateAuthority.Create("Some Other CA");

        await using var server = await _bed.StartAsync(
            $"--Ingest:Https:CertificatePath={_bed.File("server.pfx")}", $"--Ingest:Https:CertificatePassword={Password}");
        using var trustsAnother = TlsClients.Trusting(otherAuthority.Certificate);
        using var trustsTheMachine = TlsClients.Trusting(null);
        using var trustsTheCa = TlsClients.Trusting(_bed.Authority.Certificate);

        var another = await Assert.ThrowsAsync<HttpRequestException>(() => trustsAnother.GetAsync(new Uri(server.HttpsAddress, "alive")));
        var machine = await Assert.ThrowsAsync<HttpRequestException>(() => trustsTheMachine.GetAsync(new Uri(server.HttpsAddress, "alive")));
        using var trusted = await trustsTheCa.GetAsync(new Uri(server.HttpsAddress, "alive"));

        Assert.IsType<AuthenticationException>(another.InnerException);
        Assert.IsType<AuthenticationException>(machine.InnerException);
        Assert.Equal(HttpStatusCode.OK, trusted.StatusCode);
    }
}
