using System.Net;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Ingest.Testing.Tls;

/// <summary>
/// A certificate authority made in the test (ECDSA P-256, valid for a day), and the server certificates it signs for
/// loopback: what a TLS test trusts in place of a public CA, with no file or tool from outside. A client is given
/// <c>Certificate.WriteCertificatePem</c> (<see cref="TestCertificateFiles"/>), which writes no key.
/// </summary>
public sealed class TestCertificateAuthority : IDisposable
{
    private TestCertificateAuthority(X509Certificate2 certificate) => Certificate = certificate;

    /// <summary>The CA's certificate, with its private key.</summary>
    public X509Certificate2 Certificate { get; }

    public static TestCertificateAuthority Create(string name = "Ingest Test CA")
    {
        using var key = ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var request = new CertificateRequest(new X500DistinguishedName($"CN={name}"), key, HashAlgorithmName.SHA256);
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: true, hasPathLengthConstraint: true, pathLengthConstraint: 0, critical: true));
        request.CertificateExtensions.Add(new X509KeyUsageExtension(X509KeyUsageFlags.KeyCertSign | X509KeyUsageFlags.CrlSign, critical: true));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, critical: false));
        var now = DateTimeOffset.UtcNow;
        return new TestCertificateAuthority(request.CreateSelfSigned(now.AddMinutes(-5), now.AddDays(1)));
    }

    /// <summary>
    /// A server certificate with its private key (RSA 2048 or ECDSA P-256, the two kinds a TLS server takes) for
    /// <paramref name="dnsNames"/>, or, when none are given, for <c>localhost</c>, <c>127.0.0.1</c> and <c>::1</c>.
    /// </summary>
    public X509Certificate2 IssueServerCertificate(TestKeyKind kind, params string[] dnsNames)
    {
        ArgumentNullException.ThrowIfNull(dnsNames);
        using AsymmetricAlgorithm key = kind == TestKeyKind.Rsa ? RSA.Create(2048) : ECDsa.Create(ECCurve.NamedCurves.nistP256);
        var subject = new X500DistinguishedName($"CN={(dnsNames.Length == 0 ? "localhost" : dnsNames[0])}");
        var request = key is RSA rsa
            ? new CertificateRequest(subject, rsa, HashAlgorithmName.SHA256, RSASignaturePadding.Pkcs1)
            : new CertificateRequest(subject, (ECDsa)key, HashAlgorithmName.SHA256);

        var names = new SubjectAlternativeNameBuilder();
        if (dnsNames.Length == 0)
        {
            names.AddDnsName("localhost");
            names.AddIpAddress(IPAddress.Loopback);
            names.AddIpAddress(IPAddress.IPv6Loopback);
        }

        foreach (var name in dnsNames)
        {
            names.AddDnsName(name);
        }

        request.CertificateExtensions.Add(names.Build());
        request.CertificateExtensions.Add(new X509BasicConstraintsExtension(certificateAuthority: false, hasPathLengthConstraint: false, pathLengthConstraint: 0, critical: true));
        var usage = X509KeyUsageFlags.DigitalSignature | (kind == TestKeyKind.Rsa ? X509KeyUsageFlags.KeyEncipherment : X509KeyUsageFlags.None);
        request.CertificateExtensions.Add(new X509KeyUsageExtension(usage, critical: true));
        request.CertificateExtensions.Add(new X509EnhancedKeyUsageExtension([new Oid("1.3.6.1.5.5.7.3.1", "Server Authentication")], critical: false));
        request.CertificateExtensions.Add(new X509SubjectKeyIdentifierExtension(request.PublicKey, critical: false));
        request.CertificateExtensions.Add(X509AuthorityKeyIdentifierExtension.CreateFromCertificate(Certificate, includeKeyIdentifier: true, includeIssuerAndSerial: false));

        // The CA signs with its ECDSA key whatever the server's key is, which needs the generator overload.
        using var authorityKey = Certificate.GetECDsaPrivateKey()!;
        var now = DateTimeOffset.UtcNow;
        using var issued = request.Create(
            Certificate.SubjectName, X509SignatureGenerator.CreateForECDsa(authorityKey), now.AddMinutes(-5), now.AddHours(12), RandomNumberGenerator.GetBytes(16));
        return key is RSA rsaKey ? issued.CopyWithPrivateKey(rsaKey) : issued.CopyWithPrivateKey((ECDsa)key);
    }

    public void Dispose() => Certificate.Dispose();
}
