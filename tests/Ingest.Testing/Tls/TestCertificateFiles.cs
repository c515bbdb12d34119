using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;

namespace Ingest.Testing.Tls;

/// <summary>A certificate with its key written in the forms servers load: PEM certificate and key (the key encrypted or not), or PKCS#12.</summary>
public static class TestCertificateFiles
{
    /// <summary>PBES2 with AES-256 and a low iteration count: the same format as OpenSSL 3 writes, quick to open in tests.</summary>
    private static readonly PbeParameters KeyEncryption = new(PbeEncryptionAlgorithm.Aes256Cbc, HashAlgorithmName.SHA256, 2048);

    public static void WriteCertificatePem(this X509Certificate2 certificate, string path)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        File.WriteAllText(path, certificate.ExportCertificatePem() + "\n");
    }

    /// <summary>The private key as PKCS#8 PEM: <c>PRIVATE KEY</c>, or <c>ENCRYPTED PRIVATE KEY</c> when a password is given.</summary>
    public static void WriteKeyPem(this X509Certificate2 certificate, string path, string? password = null)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        using AsymmetricAlgorithm key = (AsymmetricAlgorithm?)certificate.GetRSAPrivateKey() ?? certificate.GetECDsaPrivateKey()
            ?? throw new ArgumentException("The certificate has no RSA or ECDSA private key.", nameof(certificate));
        File.WriteAllText(path, (password is null ? key.ExportPkcs8PrivateKeyPem() : key.ExportEncryptedPkcs8PrivateKeyPem(password, KeyEncryption)) + "\n");
    }

    /// <summary>The certificate and its key in one PKCS#12 (.pfx) file protected by <paramref name="password"/>.</summary>
    public static void WritePkcs12(this X509Certificate2 certificate, string path, string password)
    {
        ArgumentNullException.ThrowIfNull(certificate);
        File.WriteAllBytes(path, certificate.Export(X509ContentType.Pkcs12, password));
    }
}
