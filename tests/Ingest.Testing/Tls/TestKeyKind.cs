namespace Ingest.Testing.Tls;

/// <summary>The key of a server certificate a <see cref="TestCertificateAuthority"/> issues.</summary>
public enum TestKeyKind
{
    Ecdsa,
    Rsa,
}
