using System.Diagnostics;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace Ingest.Server.Hosting.Https;

/// <summary>
/// The certificate HTTPS presents, with the intermediates its file holds (sent with it so clients need only the root),
/// loaded from <see cref="HttpsOptions"/>. A PEM file is recognised by its <c>-----BEGIN</c> line; anything else is
/// read as PKCS#12. Every failure is an <see cref="InvalidOperationException"/> whose message names the setting to
/// fix and never contains the password.
/// </summary>
internal sealed class ServerCertificate : IDisposable
{
    private const string RsaOid = "1.2.840.113549.1.1.1";
    private const string EcPublicKeyOid = "1.2.840.10045.2.1";

    private ServerCertificate(X509Certificate2 certificate, X509Certificate2Collection chain)
    {
        Certificate = certificate;
        Chain = chain;
    }

    public X509Certificate2 Certificate { get; }

    /// <summary>The other certificates of the file (intermediates), in file order.</summary>
    public X509Certificate2Collection Chain { get; }

    public static ServerCertificate Load(HttpsOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        var path = options.CertificatePath ?? throw new InvalidOperationException($"{Setting(nameof(HttpsOptions.CertificatePath))} is not set.");
        var bytes = ReadFile(path, nameof(HttpsOptions.CertificatePath));
        return bytes.AsSpan().IndexOf("-----BEGIN "u8) >= 0
            ? LoadPem(options, path, Encoding.ASCII.GetString(bytes))
            : LoadPkcs12(options, path, bytes);
    }

    public void Dispose()
    {
        Certificate.Dispose();
        foreach (var certificate in Chain)
        {
            certificate.Dispose();
        }
    }

    private static ServerCertificate LoadPem(HttpsOptions options, string path, string text)
    {
        var certificates = new X509Certificate2Collection();
        try
        {
            certificates.ImportFromPem(text);
        }
        catch (CryptographicException ex)
        {
            throw Problem($"{Setting(nameof(HttpsOptions.CertificatePath))} ({path}) holds a PEM certificate that cannot be read: {ex.Message}");
        }

        if (certificates.Count == 0)
        {
            throw Problem($"{Setting(nameof(HttpsOptions.CertificatePath))} ({path}) holds no PEM certificate (-----BEGIN CERTIFICATE-----).");
        }

        var leaf = certificates[0];
        certificates.RemoveAt(0);
        try
        {
            var withKey = AttachKey(options, path, leaf);
            return new ServerCertificate(withKey, certificates);
        }
        catch
        {
            foreach (var certificate in certificates)
            {
                certificate.Dispose();
            }

            throw;
        }
        finally
        {
            leaf.Dispose();
        }
    }

    /// <summary>
    /// The leaf with the PEM key of <see cref="HttpsOptions.KeyPath"/> (or of the certificate's own file). The key is
    /// imported as the certificate's algorithm, so a wrong password, a key that is none and a key of another
    /// certificate each get their own message.
    /// </summary>
    private static X509Certificate2 AttachKey(HttpsOptions options, string certificatePath, X509Certificate2 leaf)
    {
        var keySetting = string.IsNullOrEmpty(options.KeyPath) ? nameof(HttpsOptions.CertificatePath) : nameof(HttpsOptions.KeyPath);
        var keyPath = string.IsNullOrEmpty(options.KeyPath) ? certificatePath : options.KeyPath;
        var where = $"{Setting(keySetting)} ({keyPath})";
        var keyText = Encoding.ASCII.GetString(ReadFile(keyPath, keySetting));
        var (found, encrypted) = FindKey(keyText);
        if (!found)
        {
            var hint = keySetting == nameof(HttpsOptions.CertificatePath) ? $"; set {Setting(nameof(HttpsOptions.KeyPath))} to the key's file" : string.Empty;
            throw Problem($"{where} holds no PEM private key (-----BEGIN PRIVATE KEY-----){hint}.");
        }

        if (keyText.Contains("Proc-Type: 4,ENCRYPTED", StringComparison.Ordinal))
        {
            throw Problem($"{where} holds a key in OpenSSL's legacy encrypted format, which .NET cannot read: convert it with 'openssl pkcs8 -topk8 -in old.key -out new.key'.");
        }

        var password = options.CertificatePassword;
        if (encrypted && string.IsNullOrEmpty(password))
        {
            throw Problem($"{where} holds an encrypted key: set {Setting(nameof(HttpsOptions.CertificatePassword))}.");
        }

        AsymmetricAlgorithm key = leaf.GetKeyAlgorithm() switch
        {
            RsaOid => RSA.Create(),
            EcPublicKeyOid => ECDsa.Create(),
            var other => throw Problem($"{Setting(nameof(HttpsOptions.CertificatePath))} ({certificatePath}) has a key of algorithm {other}; HTTPS takes RSA or ECDSA certificates."),
        };
        using (key)
        {
            try
            {
                if (encrypted)
                {
                    key.ImportFromEncryptedPem(keyText, password);
                }
                else
                {
                    key.ImportFromPem(keyText);
                }
            }
            catch (Exception ex) when (ex is CryptographicException or ArgumentException)
            {
                // A PKCS#8 key of the other algorithm fails here as well as a wrong password does.
                throw Problem(encrypted
                    ? $"{Setting(nameof(HttpsOptions.CertificatePassword))} does not decrypt the key in {where} into the certificate's kind of key ({Describe(leaf)}): wrong password, or a key of another certificate."
                    : $"the key in {where} is not the certificate's kind of key ({Describe(leaf)}): it belongs to another certificate.");
            }

            try
            {
                return key switch
                {
                    RSA rsa => leaf.CopyWithPrivateKey(rsa),
                    ECDsa ecdsa => leaf.CopyWithPrivateKey(ecdsa),
                    _ => throw new UnreachableException(),
                };
            }
            catch (ArgumentException)
            {
                throw Problem($"the key in {where} belongs to another certificate than the one in {Setting(nameof(HttpsOptions.CertificatePath))} ({certificatePath}).");
            }
        }
    }

    /// <summary>Whether the text holds a PEM private key, and whether that key is encrypted (PKCS#8 <c>ENCRYPTED PRIVATE KEY</c>).</summary>
    private static (bool Found, bool Encrypted) FindKey(string text)
    {
        var rest = text.AsSpan();
        while (PemEncoding.TryFind(rest, out var fields))
        {
            var label = rest[fields.Label];
            if (label.SequenceEqual("ENCRYPTED PRIVATE KEY"))
            {
                return (true, true);
            }

            if (label.SequenceEqual("PRIVATE KEY") || label.SequenceEqual("RSA PRIVATE KEY") || label.SequenceEqual("EC PRIVATE KEY"))
            {
                return (true, false);
            }

            rest = rest[fields.Location.End..];
        }

        return (false, false);
    }

    private static ServerCertificate LoadPkcs12(HttpsOptions options, string path, byte[] bytes)
    {
        var where = $"{Setting(nameof(HttpsOptions.CertificatePath))} ({path})";
        var contentType = X509Certificate2.GetCertContentType(bytes);
        if (contentType == X509ContentType.Cert)
        {
            throw Problem($"{where} is a DER certificate without its key: give a PEM certificate with {Setting(nameof(HttpsOptions.KeyPath))}, or a PKCS#12 (.pfx) file.");
        }

        if (contentType != X509ContentType.Pfx)
        {
            throw Problem($"{where} is neither PEM (-----BEGIN CERTIFICATE-----) nor PKCS#12 (.pfx).");
        }

        X509Certificate2Collection all;
        try
        {
            all = X509CertificateLoader.LoadPkcs12Collection(bytes, options.CertificatePassword);
        }
        catch (CryptographicException)
        {
            throw Problem(string.IsNullOrEmpty(options.CertificatePassword)
                ? $"{where} does not open without a password: set {Setting(nameof(HttpsOptions.CertificatePassword))}."
                : $"{Setting(nameof(HttpsOptions.CertificatePassword))} does not open the PKCS#12 file {where}: wrong password, or a damaged file.");
        }

        X509Certificate2? leaf = null;
        var chain = new X509Certificate2Collection();
        foreach (var certificate in all)
        {
            if (leaf is null && certificate.HasPrivateKey)
            {
                leaf = certificate;
            }
            else
            {
                chain.Add(certificate);
            }
        }

        if (leaf is null)
        {
            foreach (var certificate in chain)
            {
                certificate.Dispose();
            }

            throw Problem($"{where} holds no certificate with its private key.");
        }

        return new ServerCertificate(leaf, chain);
    }

    private static byte[] ReadFile(string path, string setting)
    {
        try
        {
            return File.ReadAllBytes(path);
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            throw Problem($"{Setting(setting)} names no file: {path}.");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException)
        {
            throw Problem($"{Setting(setting)} ({path}) cannot be read: {ex.Message}");
        }
    }

    private static string Describe(X509Certificate2 certificate) =>
        certificate.GetKeyAlgorithm() == RsaOid ? "RSA" : "ECDSA";

    private static string Setting(string name) => HttpsOptions.Setting(name);

    private static InvalidOperationException Problem(string message) => new(message);
}
