using System.Net.Security;
using System.Security.Authentication;
using System.Security.Cryptography;
using System.Security.Cryptography.X509Certificates;
using System.Text;

namespace Ingest.Cli.Server;

/// <summary>
/// Which certificates the CLI accepts from an https:// server: the machine's trusted roots, or, with <c>--ca</c> (or
/// <c>INGEST_CA</c>), only the CAs of that PEM file (a private CA that signed the server's certificate). .NET builds and
/// checks the chain and the host name either way; nothing is accepted that it rejects. Also turns a refused
/// certificate into a message that says what to do.
/// </summary>
internal sealed class ServerTrust
{
    /// <summary>Read when --ca is not given.</summary>
    public const string CaVariable = "INGEST_CA";

    private readonly X509Certificate2Collection? _authorities;
    private readonly string? _caPath;
    private SslPolicyErrors _refused;
    private X509ChainStatusFlags _chainStatus;

    private ServerTrust(string? caPath, X509Certificate2Collection? authorities)
    {
        _caPath = caPath;
        _authorities = authorities;
    }

    /// <summary>Only the CA certificates in <paramref name="caPath"/> (PEM, one or more; or one DER certificate); the machine's roots when null or empty.</summary>
    public static ServerTrust Load(string? caPath)
    {
        if (string.IsNullOrEmpty(caPath))
        {
            return new ServerTrust(null, null);
        }

        var authorities = new X509Certificate2Collection();
        try
        {
            var bytes = File.ReadAllBytes(caPath);
            if (bytes.AsSpan().IndexOf("-----BEGIN "u8) >= 0)
            {
                authorities.ImportFromPem(Encoding.ASCII.GetString(bytes));
            }
            else
            {
                authorities.Add(X509CertificateLoader.LoadCertificate(bytes));
            }
        }
        catch (Exception ex) when (ex is FileNotFoundException or DirectoryNotFoundException)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"--ca names no file: {caPath}");
        }
        catch (Exception ex) when (ex is IOException or UnauthorizedAccessException or CryptographicException)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"--ca {caPath} cannot be read as a certificate: {ex.Message}");
        }

        if (authorities.Count == 0)
        {
            throw new CommandFailedException(ExitCodes.Usage, $"--ca {caPath} holds no PEM certificate (-----BEGIN CERTIFICATE-----)");
        }

        return new ServerTrust(caPath, authorities);
    }

    public HttpClient CreateHttpClient(TimeSpan timeout)
    {
        var tls = new SslClientAuthenticationOptions
        {
            // Not an override: it returns .NET's own verdict and only keeps why a certificate was refused, for Describe.
            RemoteCertificateValidationCallback = Check,
        };
        if (_authorities is not null)
        {
            // A private CA publishes no revocation lists as a rule; SslStream checks none by default either.
            var policy = new X509ChainPolicy { TrustMode = X509ChainTrustMode.CustomRootTrust, RevocationMode = X509RevocationMode.NoCheck };
            policy.CustomTrustStore.AddRange(_authorities);
            tls.CertificateChainPolicy = policy;
        }

        return new HttpClient(new SocketsHttpHandler { SslOptions = tls }) { Timeout = timeout };
    }

    /// <summary>
    /// What to tell the user when <paramref name="exception"/> is a failed TLS handshake with <paramref name="url"/>'s
    /// server: the certificate untrusted (and how to pass --ca), for another host, or TLS itself failing (a plain HTTP
    /// port, say); null when it is not a TLS failure.
    /// </summary>
    public string? Describe(Exception exception, Uri url)
    {
        ArgumentNullException.ThrowIfNull(url);
        if (FindAuthenticationFailure(exception) is not { } failure)
        {
            return null;
        }

        var server = url.GetLeftPart(UriPartial.Authority);
        if ((_refused & SslPolicyErrors.RemoteCertificateChainErrors) != 0)
        {
            return _caPath is null
                ? $"the certificate of {server} is not trusted ({ChainProblem()}): if a private CA signed it, pass --ca with that CA's PEM file or set {CaVariable}"
                : $"the certificate of {server} is not trusted with --ca {_caPath} ({ChainProblem()}): give the PEM file of the CA that signed the server's certificate";
        }

        if ((_refused & SslPolicyErrors.RemoteCertificateNameMismatch) != 0)
        {
            return $"the certificate of {server} is not made out to '{url.IdnHost}': use the host name (or address) the certificate names in --url";
        }

        return $"no TLS connection with {server} ({failure.Message}); is it an https:// address?";
    }

    private bool Check(object sender, X509Certificate? certificate, X509Chain? chain, SslPolicyErrors errors)
    {
        _refused = errors;
        _chainStatus = X509ChainStatusFlags.NoError;
        foreach (var status in chain?.ChainStatus ?? [])
        {
            _chainStatus |= status.Status;
        }

        return errors == SslPolicyErrors.None;
    }

    /// <summary>Why the chain failed, in words: an unknown CA (Linux reports PartialChain when the root is nowhere to be found), validity dates, or .NET's flag names.</summary>
    private string ChainProblem()
    {
        var problems = new List<string>();
        if ((_chainStatus & (X509ChainStatusFlags.PartialChain | X509ChainStatusFlags.UntrustedRoot)) != 0)
        {
            problems.Add(_caPath is null ? "signed by a CA this machine does not trust" : "not signed by a CA in that file");
        }

        if ((_chainStatus & X509ChainStatusFlags.NotTimeValid) != 0)
        {
            problems.Add("expired or not yet valid");
        }

        var rest = _chainStatus & ~(X509ChainStatusFlags.PartialChain | X509ChainStatusFlags.UntrustedRoot | X509ChainStatusFlags.NotTimeValid);
        if (rest != X509ChainStatusFlags.NoError || problems.Count == 0)
        {
            problems.Add(rest.ToString());
        }

        return string.Join("; ", problems);
    }

    private static AuthenticationException? FindAuthenticationFailure(Exception? exception)
    {
        for (; exception is not null; exception = exception.InnerException)
        {
            if (exception is AuthenticationException authentication)
            {
                return authentication;
            }
        }

        return null;
    }
}
