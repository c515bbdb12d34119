using Microsoft.AspNetCore.Http;

namespace Ingest.Server.Hosting.Https;

/// <summary>
/// HTTPS served by Ingest itself, bound from <c>Ingest:Https</c>: one address and one certificate (PEM files or a
/// PKCS#12 file), and the Strict-Transport-Security header when asked. Kestrel's own <c>Kestrel:Endpoints</c> and
/// <c>Kestrel:Certificates</c> keep working beside it; these settings are the short form.
/// </summary>
public sealed class HttpsOptions
{
    public const string SectionName = "Ingest:Https";

    /// <summary>An <c>https://</c> address to listen on (<c>https://0.0.0.0:8443</c>); none by default.</summary>
    public string? Url { get; set; }

    /// <summary>A PEM file (the certificate first, then any intermediates; the key too when <see cref="KeyPath"/> is not set) or a PKCS#12 (.pfx) file.</summary>
    public string? CertificatePath { get; set; }

    /// <summary>The PEM private key, when it is not in the certificate's file.</summary>
    public string? KeyPath { get; set; }

    /// <summary>The PKCS#12 file's password, or the password of an encrypted PEM key (<c>ENCRYPTED PRIVATE KEY</c>).</summary>
    public string? CertificatePassword { get; set; }

    /// <summary>Send Strict-Transport-Security on every HTTPS response.</summary>
    public bool Hsts { get; set; }

    /// <summary>How long a browser keeps to HTTPS after it saw the header (its <c>max-age</c>).</summary>
    public TimeSpan HstsMaxAge { get; set; } = TimeSpan.FromDays(365);

    /// <summary>Whether the header's promise covers the host's subdomains too (<c>includeSubDomains</c>).</summary>
    public bool HstsIncludeSubDomains { get; set; }

    /// <summary>The full name of one of these settings, as start-up errors name it.</summary>
    internal static string Setting(string name) => $"{SectionName}:{name}";

    /// <summary>
    /// Every problem with these settings, each naming the setting and never the password; empty when valid. The
    /// certificate is loaded here, so a missing file, a wrong password or a key of another certificate stops
    /// start-up rather than the first TLS handshake. <paramref name="kestrelEndpoints"/>: whether
    /// <c>Kestrel:Endpoints</c> is configured, which makes Kestrel ignore every other address.
    /// </summary>
    public IReadOnlyList<string> Validate(bool kestrelEndpoints)
    {
        var errors = new List<string>();
        if (!string.IsNullOrEmpty(Url))
        {
            ValidateUrl(Url, kestrelEndpoints, errors);
        }

        if (string.IsNullOrEmpty(CertificatePath))
        {
            if (!string.IsNullOrEmpty(Url))
            {
                errors.Add($"{Setting(nameof(Url))} needs {Setting(nameof(CertificatePath))}: a PEM certificate (with {Setting(nameof(KeyPath))}) or a PKCS#12 (.pfx) file.");
            }

            if (!string.IsNullOrEmpty(KeyPath) || !string.IsNullOrEmpty(CertificatePassword))
            {
                errors.Add($"{Setting(nameof(KeyPath))} and {Setting(nameof(CertificatePassword))} belong to a certificate: set {Setting(nameof(CertificatePath))} too.");
            }
        }
        else
        {
            try
            {
                ServerCertificate.Load(this).Dispose();
            }
            catch (InvalidOperationException ex)
            {
                errors.Add(ex.Message);
            }
        }

        if (HstsMaxAge <= TimeSpan.Zero)
        {
            errors.Add($"{Setting(nameof(HstsMaxAge))} must be longer than zero (was {HstsMaxAge}).");
        }

        return errors;
    }

    private static void ValidateUrl(string url, bool kestrelEndpoints, List<string> errors)
    {
        BindingAddress address;
        try
        {
            address = BindingAddress.Parse(url);
        }
        catch (FormatException)
        {
            errors.Add($"{Setting(nameof(Url))} must be an address like https://0.0.0.0:8443 (was '{url}').");
            return;
        }

        if (!string.Equals(address.Scheme, "https", StringComparison.OrdinalIgnoreCase) || address.IsUnixPipe || address.IsNamedPipe)
        {
            errors.Add($"{Setting(nameof(Url))} must be an https:// address like https://0.0.0.0:8443 (was '{url}'); plain HTTP addresses go in Urls.");
        }

        if (kestrelEndpoints)
        {
            errors.Add($"{Setting(nameof(Url))} cannot be combined with Kestrel:Endpoints, which make Kestrel listen on those endpoints only: declare the HTTPS endpoint there too, or drop Kestrel:Endpoints.");
        }
    }
}
